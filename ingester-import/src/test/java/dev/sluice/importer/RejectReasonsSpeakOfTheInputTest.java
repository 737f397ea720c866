package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rejected value's reason names the input's file, line and column and the reason in the user's terms: no
 * position inside an internal batch ("row 0" for line 3) and no Java class to use.
 */
class RejectReasonsSpeakOfTheInputTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private static final Pattern BATCH_ROW = Pattern.compile("\\brow \\d+\\b");

    private void reasonsAreTheInputs(Path f, String rejectedLine) throws Exception {
        Path rejects = dir.resolve(f.getFileName() + ".rej");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "u:UInt64", "--on-error", "skip",
                "--rejects", rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(1, lines.size(), lines.toString());
        String rej = lines.get(0);
        assertTrue(rej.contains("\"line\":" + rejectedLine) && rej.contains("\"column\":\"u\""), rej);
        assertFalse(BATCH_ROW.matcher(rej).find(), "a batch's row, not the input's line: " + rej);
        assertFalse(rej.contains("BigInteger"), "a Java class is no advice to a command's user: " + rej);
        assertFalse(BATCH_ROW.matcher(r.err()).find(), r.err());
        assertTrue(r.err().contains(f.getFileName().toString()) && r.err().contains("line " + rejectedLine), r.err());
    }

    @Test
    void csv() throws Exception {
        Path f = dir.resolve("negu.csv");
        Files.writeString(f, "id,ts,u\n1,1700000000001,5\n2,1700000000002,-5\n3,1700000000003,6\n");
        reasonsAreTheInputs(f, "3");
    }

    @Test
    void jsonLines() throws Exception {
        Path f = dir.resolve("negu.jsonl");
        Files.writeString(f, "{\"id\":1,\"ts\":1700000000001,\"u\":5}\n{\"id\":2,\"ts\":1700000000002,\"u\":-5}\n"
                + "{\"id\":3,\"ts\":1700000000003,\"u\":6}\n");
        reasonsAreTheInputs(f, "2");
    }
}
