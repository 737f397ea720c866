package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CSV header naming a column twice, or leaving a name empty, is a usage error (exit 2, nothing created) whose
 * message names the file and the column as the header counts it, and the option that fixes it (--columns, which
 * replaces the header).
 */
class HeaderNameProblemsNameTheFileAndTheFixTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aNameTwice() throws Exception {
        Path f = dir.resolve("twice.csv");
        Files.writeString(f, "id,ts,v,v\n1,1700000000001,1,2\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertFalse(testkit.server().tables().contains("twice"));
        assertTrue(r.err().contains("twice.csv"), "the file is not named: " + r.err());
        assertTrue(r.err().contains("--columns"), "no fix offered: " + r.err());
        assertEquals(0, Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--columns", "id,ts,v,v2", f.toString())).code());
    }

    @Test
    void anEmptyName() throws Exception {
        Path f = dir.resolve("unnamed.csv");
        Files.writeString(f, "id,ts,,v\n1,1700000000001,1,2\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("unnamed.csv"), "the file is not named: " + r.err());
        assertTrue(r.err().contains("column 3"), "the header's third column is the empty one: " + r.err());
        assertTrue(r.err().contains("--columns"), "no fix offered: " + r.err());
    }
}
