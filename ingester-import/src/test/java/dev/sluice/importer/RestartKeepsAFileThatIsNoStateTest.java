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
 * --state naming a file that is not a state file at all (not JSON: another data file) is refused, and the advice
 * given is not to "pass --restart": --restart then replaces that file with the state, destroying it.
 */
class RestartKeepsAFileThatIsNoStateTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aDataFileGivenAsStateSurvivesRestart() throws Exception {
        Path input = dir.resolve("input.csv");
        Files.writeString(input, "id,ts,v\n1,1700000000001,1\n");
        Path precious = dir.resolve("precious.csv");
        String content = "a,b\n1,2\n3,4\n";
        Files.writeString(precious, content);
        Cli.Run first = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--state", precious.toString(), input.toString()));
        assertEquals(2, first.code(), first.toString());
        Cli.Run restart = Cli.run(Cli.at(testkit.server(), "-q", "--restart", "--tags", "id", "--state", precious.toString(),
                input.toString()));
        assertEquals(content, Files.readString(precious), "--restart wrote the state over a file that held no state: "
                + first.err());
    }
}
