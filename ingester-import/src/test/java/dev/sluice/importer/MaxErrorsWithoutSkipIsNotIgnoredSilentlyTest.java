package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * --max-errors only means something with --on-error skip. Given with the default policy (abort), a user asking to
 * tolerate ten bad rows gets an import stopped at the first: the command either refuses the combination as a usage
 * error before sending anything, or says that --max-errors has no effect without --on-error skip.
 */
class MaxErrorsWithoutSkipIsNotIgnoredSilentlyTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void maxErrorsWithTheDefaultAbort() throws Exception {
        Path f = dir.resolve("tolerant.csv");
        Files.writeString(f, "id,ts,v\n1,1700000000001,1\n2,1700000000002,x\n3,1700000000003,3\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", "--max-errors", "10",
                f.toString()));
        if (r.code() != 2) {
            assertEquals(1, r.code(), r.toString());
            assertTrue(r.err().contains("--max-errors"), "--max-errors 10 was ignored without a word: " + r.err());
        } else {
            assertTrue(r.err().contains("--max-errors") && r.err().contains("--on-error"), r.err());
            assertEquals(false, testkit.server().tables().contains("tolerant"));
        }
    }
}
