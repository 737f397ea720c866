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
 * --rejects naming one of the inputs, or the state file, is a usage error reported before anything is written:
 * rejected rows appended to an input corrupt it (and make the next run refuse it as changed), and a rejects file
 * in the state file's place leaves an empty state that refuses every later run.
 */
class RejectsFileNamingAnInputOrTheStateIsRefusedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private static final String DATA = "id,ts,v\n1,1700000000001,1\n2,1700000000002,x\n3,1700000000003,3\n";

    @Test
    void theInput() throws Exception {
        Path f = dir.resolve("rejinput.csv");
        Files.writeString(f, DATA);
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", "--on-error", "skip",
                "--rejects", f.toString(), f.toString()));
        assertEquals(DATA, Files.readString(f), "rejected rows were appended to the input: " + r);
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--rejects"), r.err());
    }

    @Test
    void theStateFile() throws Exception {
        Path f = dir.resolve("rejstate.csv");
        Files.writeString(f, DATA);
        Path state = dir.resolve("rejstate.state");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", "--on-error", "skip",
                "--state", state.toString(), "--rejects", state.toString(), f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--rejects"), "the clash is not named: " + r.err());
        assertFalse(Files.exists(state) && Files.size(state) == 0, "an empty state file was left behind");
        Cli.Run again = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", "--on-error", "skip",
                "--state", state.toString(), f.toString()));
        assertEquals(1, again.code(), "the corrected command runs: " + again);
    }
}
