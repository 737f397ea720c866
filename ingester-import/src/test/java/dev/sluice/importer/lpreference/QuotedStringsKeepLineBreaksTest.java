package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A line break or a lone CR inside a quoted string field is part of the string, and line numbers stay true. */
class QuotedStringsKeepLineBreaksTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aNewlineInsideAQuotedStringIsPartOfTheValueAndLaterLineNumbersCountPhysicalLines() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "nl",
                "nlq value=\"4\n2\" 1\nnlq value=\"ok\" 2\nnlq value=oops 3\n".getBytes(UTF_8));
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "nlq");
        assertEquals(List.of("4\n2", "ok"), rows.stream().map(m -> m.get("value")).toList(), r.toString());
        assertEquals(1, r.rejects().size(), r.toString());
        assertTrue(r.rejects().get(0).contains("\"line\":4"), "the bad line is the file's 4th line: " + r);
    }

    @Test
    void aLoneCarriageReturnInsideAStringIsNotALineBreak() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "cr",
                "crq s=\"o\rx\" 1\ncrq s=\"y\" 2\ncrq s=broken 3\n".getBytes(UTF_8));
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "crq");
        assertEquals(List.of("o\rx", "y"), rows.stream().map(m -> m.get("s")).toList(), r.toString());
        assertEquals(1, r.rejects().size(), r.toString());
        assertTrue(r.rejects().get(0).contains("\"line\":3"), r.toString());
    }

    @Test
    void crlfLineEndingsLeaveNoCarriageReturnInTheLastValue() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "crlf",
                "crlfq,t=a s=\"x\" 1\r\ncrlfq,t=b b=T\r\ncrlfq,t=c v=1i 3\r\n".getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "crlfq");
        assertEquals(3, rows.size(), r.toString());
        assertTrue(rows.stream().anyMatch(m -> Boolean.TRUE.equals(m.get("b"))), rows.toString());
        assertTrue(rows.stream().anyMatch(m -> Long.valueOf(1).equals(m.get("v"))), rows.toString());
    }
}
