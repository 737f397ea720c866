package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An input without a time column gets the import's time in greptime_timestamp. Running the same command again
 * (after it completed, or to continue after it stopped at a bad row) uses its state file as the README says:
 * a completed import sends nothing, a stopped one continues from its acknowledged position.
 */
class RerunIntoATableTimedByTheImportTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aCompletedImportRunAgainSendsNothingAndSucceeds() throws Exception {
        Path f = dir.resolve("untimed.csv");
        Files.writeString(f, "id,v\n1,10\n2,20\n");
        String[] args = Cli.at(testkit.server(), "-q", "--tags", "id", f.toString());
        Cli.Run first = Cli.run(args);
        assertEquals(0, first.code(), first.toString());
        Cli.Run again = Cli.run(args);
        assertEquals(0, again.code(), again.toString());
        assertEquals(2, testkit.server().rowCount("untimed"));
    }

    @Test
    void anImportStoppedAtABadRowContinuesWithSkip() throws Exception {
        Path f = dir.resolve("untimed_bad.csv");
        Files.writeString(f, "id,v\n1,10\n2,20\n3,oops\n4,40\n");
        Cli.Run first = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", f.toString()));
        assertEquals(1, first.code(), first.toString());
        assertEquals(2, testkit.server().rowCount("untimed_bad"));
        Cli.Run again = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", "--on-error", "skip",
                f.toString()));
        assertEquals(1, again.code(), again.toString());
        assertEquals(3, testkit.server().rowCount("untimed_bad"), again.toString());
    }
}
