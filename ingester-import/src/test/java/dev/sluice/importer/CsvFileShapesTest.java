package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Line endings, an unterminated quote and an empty file. */
class CsvFileShapesTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void crlfLineEndingsLeaveNoCarriageReturnInValues() throws IOException {
        Path f = dir.resolve("crlf.csv");
        Files.writeString(f, "id,v,note\r\n1,\"x\",last\r\n2,y,\"quoted\r\nbreak\"\r\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", f.toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Map<String, Object>> rows = new java.util.TreeMap<>();
        testkit.server().rows("crlf").forEach(m -> rows.put((Long) m.get("id"), m));
        assertEquals("x", rows.get(1L).get("v"));
        assertEquals("last", rows.get(1L).get("note"));
        assertEquals("y", rows.get(2L).get("v"));
        assertEquals("quoted\r\nbreak", rows.get(2L).get("note"));
    }

    @Test
    void anUnterminatedQuoteStopsTheImportAtItsLineAndSendsNothingAfterIt() throws IOException {
        Path f = dir.resolve("unterminated.csv");
        Files.writeString(f, "id,v,ts\n1,a,1700000000001\n2,\"abc,1700000000002\n3,x,1700000000003\n4,y,1700000000004\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--time-index", "ts", f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("unterminated.csv' line 3"), r.err());
        assertEquals(1, testkit.server().rowCount("unterminated"));
    }

    @Test
    void anEmptyFileFailsNamingIt() throws IOException {
        Path f = dir.resolve("nothing.csv");
        Files.writeString(f, "");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(3, r.code(), r.toString());
        assertTrue(r.err().contains("nothing.csv"), r.err());
        assertFalse(testkit.server().tables().contains("nothing"));
    }
}
