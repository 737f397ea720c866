package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * 1e400 is a finite number that Float64 cannot hold. It is a bad row (or kept exactly), never stored as Infinity,
 * a value the file does not hold; likewise -1e400 and -Infinity. The literal "Infinity" is another matter and is
 * not written here.
 */
class NumbersBeyondFloat64AreNotStoredAsInfinityTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private static void noInfinity(String table, Cli.Run r) {
        for (Map<String, Object> row : testkit.server().rows(table)) {
            Object x = row.get("x");
            assertFalse(x instanceof Double d && d.isInfinite(), "row " + row + " stored an infinity\n" + r);
        }
    }

    @Test
    void csv() throws Exception {
        Path f = dir.resolve("huge_csv.csv");
        Files.writeString(f, "id,ts,x\n1,1700000000001,1.5\n2,1700000000002,1e400\n3,1700000000003,-1e400\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--on-error", "skip", f.toString()));
        noInfinity("huge_csv", r);
    }

    @Test
    void csvWithFloat64Override() throws Exception {
        Path f = dir.resolve("huge_typed.csv");
        Files.writeString(f, "id,ts,x\n1,1700000000001,1.5\n2,1700000000002,1e400\n3,1700000000003,-1e400\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "x:Float64", "--on-error", "skip",
                f.toString()));
        noInfinity("huge_typed", r);
        assertEquals(1, r.code(), "the two values that do not fit Float64 are rejected: " + r);
    }

    @Test
    void jsonLines() throws Exception {
        Path f = dir.resolve("huge_json.jsonl");
        Files.writeString(f, "{\"id\":1,\"ts\":1700000000001,\"x\":1.5}\n{\"id\":2,\"ts\":1700000000002,\"x\":1e400}\n"
                + "{\"id\":3,\"ts\":1700000000003,\"x\":-1e400}\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--on-error", "skip", f.toString()));
        noInfinity("huge_json", r);
    }
}
