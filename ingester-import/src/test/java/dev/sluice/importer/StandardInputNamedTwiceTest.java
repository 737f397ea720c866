package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * "-" given twice names one stream: like a file named twice it is read once (its rows stored, exit 0), or the
 * command refuses it as a usage error before reading. It does not fail as an unreadable empty input after
 * the stream's rows were consumed and never written.
 */
class StandardInputNamedTwiceTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void dashDash() {
        Cli.Run r = StandardInputImportedAgainTest.fromStdin("id,ts,v\n1,1700000000001,1\n2,1700000000002,2\n",
                Cli.at(testkit.server(), "-q", "--format", "csv", "--table", "twodash", "--tags", "id", "--state",
                        dir.resolve("twodash.state").toString(), "-", "-"));
        if (r.code() == 2) {
            assertTrue(r.err().contains("'-'"), r.err());
            return;
        }
        assertEquals(0, r.code(), r.toString());
        assertEquals(2, testkit.server().rowCount("twodash"), r.toString());
    }
}
