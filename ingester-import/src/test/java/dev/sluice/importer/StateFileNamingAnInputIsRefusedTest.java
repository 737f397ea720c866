package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * --state naming one of the inputs (a slip of the keyboard) is a usage error: the import must not write its state
 * over the user's data file, with or without --restart.
 */
class StateFileNamingAnInputIsRefusedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private static final String DATA = "id,ts,v\n1,1700000000001,1\n2,1700000000002,2\n";

    @Test
    void withRestart() throws Exception {
        Path f = dir.resolve("itself.csv");
        Files.writeString(f, DATA);
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--restart", "--tags", "id", "--state", f.toString(), f.toString()));
        assertEquals(DATA, Files.readString(f), "the input was overwritten by the state: " + r);
        assertEquals(2, r.code(), r.toString());
    }

    @Test
    void aSecondInputNamedAsTheState() throws Exception {
        Path a = dir.resolve("first.csv");
        Path b = dir.resolve("second.csv");
        Files.writeString(a, DATA);
        Files.writeString(b, DATA.replace("1700", "1800"));
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--restart", "--table", "pair", "--tags", "id", "--state",
                b.toString(), a.toString(), b.toString()));
        assertEquals(DATA.replace("1700", "1800"), Files.readString(b), "the input was overwritten by the state: " + r);
        assertEquals(2, r.code(), r.toString());
        assertFalse(testkit.server().tables().contains("pair"), "sent before refusing");
    }
}
