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
 * A state file the import cannot create (its directory is missing, or is a file) is a usage error reported before
 * anything is sent or created, naming the path and --state; the directory is not created behind the user's back.
 */
class StateFileInAMissingDirectoryIsRefusedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void missingDirectory() throws Exception {
        Path f = dir.resolve("nostatedir.csv");
        Files.writeString(f, "id,ts,v\n1,1700000000001,1\n");
        Path state = dir.resolve("absent").resolve("deeper").resolve("s.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--state", state.toString(), f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains(state.toString()) && r.err().contains("--state"), r.err());
        assertFalse(testkit.server().tables().contains("nostatedir"), "created before refusing");
        assertFalse(Files.exists(dir.resolve("absent")));
    }

    @Test
    void aFileInPlaceOfTheDirectory() throws Exception {
        Path f = dir.resolve("statebelowfile.csv");
        Files.writeString(f, "id,ts,v\n1,1700000000001,1\n");
        Path state = f.resolve("s.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--state", state.toString(), f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--state"), r.err());
        assertFalse(testkit.server().tables().contains("statebelowfile"), "created before refusing");
    }
}
