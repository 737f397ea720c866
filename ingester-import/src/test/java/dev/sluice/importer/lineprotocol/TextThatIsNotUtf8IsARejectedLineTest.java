package dev.sluice.importer.lineprotocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A line whose bytes are not well-formed UTF-8 is a bad row naming the file, the line and the byte. */
class TextThatIsNotUtf8IsARejectedLineTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static byte[] lines(String table) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes((table + ",foo=ok v=1 1\n" + table + ",foo=bad").getBytes(StandardCharsets.UTF_8));
        b.write(0xff);
        b.writeBytes((" v=2 2\n" + table + ",foo=fine v=3 3\n").getBytes(StandardCharsets.UTF_8));
        return b.toByteArray();
    }

    @Test
    void skipRejectsTheLineNamingItsByte() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "utf.lp", lines("nutf"));
        assertEquals(1, r.run().code(), r.run().toString());
        assertEquals(List.of("ok", "fine"), LineProtocolRuns.rows(testkit.server(), "nutf").stream()
                .map(m -> m.get("foo")).toList());
        assertEquals(1, r.rejects().size(), r.rejects().toString());
        assertTrue(r.rejects().get(0).contains("\"line\":2") && r.rejects().get(0).contains("byte 13")
                && r.rejects().get(0).contains("UTF-8"), r.rejects().get(0));
    }

    @Test
    void abortStopsAtTheLineNamingTheFileTheLineAndTheByte() throws IOException {
        Path f = dir.resolve("abort-utf.lp");
        Files.write(f, lines("nutfa"));
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("abort-utf.lp' line 2, byte 14: "), r.err());
        assertEquals(List.of("ok"), LineProtocolRuns.rows(testkit.server(), "nutfa").stream()
                .map(m -> m.get("foo")).toList());
    }
}
