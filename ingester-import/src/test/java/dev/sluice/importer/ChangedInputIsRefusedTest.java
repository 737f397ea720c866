package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The state file belongs to the inputs and the table it recorded: a grown input or another table is refused. */
class ChangedInputIsRefusedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aGrownInputIsRefusedUntilRestartAndAnotherTableNeedsAnotherState() throws IOException {
        Path f = dir.resolve("grow.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000001\n");
        assertEquals(0, Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString())).code());
        Files.writeString(f, "2,2.5,1700000000002\n", StandardOpenOption.APPEND);

        Cli.Run refused = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString()));
        assertEquals(2, refused.code(), refused.toString());
        assertTrue(refused.err().contains("grow.csv' changed since") && refused.err().contains("--restart"), refused.err());
        assertEquals(1, testkit.server().rowCount("grow"));

        Cli.Run elsewhere = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--table", "grow_other", f.toString()));
        assertEquals(2, elsewhere.code(), elsewhere.toString());
        assertTrue(elsewhere.err().contains("belongs to an import into 'grow', not 'grow_other'"), elsewhere.err());

        Cli.Run restarted = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--restart", f.toString()));
        assertEquals(0, restarted.code(), restarted.toString());
        assertEquals(2, testkit.server().rowCount("grow"));
        Cli.Run again = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--summary-json", "-", f.toString()));
        assertEquals(0, again.code(), again.toString());
        assertTrue(again.out().contains("\"rowsWritten\":0"), again.out());
        assertEquals(2, testkit.server().rowCount("grow"));
    }
}
