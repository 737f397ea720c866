package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JSON Lines record that is not valid JSON is rejected with the file's line and a reason a user can act on, not
 * the parser's own location (which counts within the one record, "line: 1") and its configuration names.
 */
class InvalidJsonLineReasonIsTheInputsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void truncatedObject() throws Exception {
        Path f = dir.resolve("cut.jsonl");
        Files.writeString(f, "{\"id\":1,\"ts\":1700000000001,\"v\":1}\n{\"id\":2,\"ts\":1700000000002,\"v\":2\n"
                + "{\"id\":3,\"ts\":1700000000003,\"v\":3}\n");
        Path rejects = dir.resolve("cut.rej");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--on-error", "skip", "--rejects",
                rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertEquals(2, testkit.server().rowCount("cut"));
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(1, lines.size(), lines.toString());
        String rej = lines.get(0);
        assertTrue(rej.contains("\"line\":2"), rej);
        for (String internal : List.of("REDACTED", "StreamReadFeature", "line: 1", "[Source:")) {
            assertFalse(rej.contains(internal), "parser internals in the reason (" + internal + "): " + rej);
            assertFalse(r.err().contains(internal), "parser internals in the message (" + internal + "): " + r.err());
        }
    }
}
