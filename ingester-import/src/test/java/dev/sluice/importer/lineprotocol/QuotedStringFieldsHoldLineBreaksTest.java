package dev.sluice.importer.lineprotocol;

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

/**
 * A line ends at a line feed outside a quoted string field value, as InfluxDB splits lines: a line feed inside the
 * quotes and a carriage return anywhere are part of the line, and later lines keep their numbers in the file.
 */
class QuotedStringFieldsHoldLineBreaksTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aLineFeedInsideAQuotedStringIsPartOfTheString() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "lf.lp",
                "qlf value=\"4\n2\" 1\nqlf value=\"x\" 2\nqlf value=oops 3\n");
        assertEquals(1, r.run().code(), r.run().toString());
        List<Map<String, Object>> rows = LineProtocolRuns.rows(testkit.server(), "qlf");
        assertEquals(List.of("4\n2", "x"), rows.stream().map(m -> m.get("value")).toList());
        assertEquals(1, r.rejects().size(), r.rejects().toString());
        assertTrue(r.rejects().get(0).contains("\"line\":4"), r.rejects().get(0));
        assertTrue(r.summary().contains("\"rowsRead\":3,"), r.summary());
    }

    @Test
    void aLoneCarriageReturnIsNotALineBreak() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "cr.lp",
                "qcr s=\"o\rx\" 1\nqcr s=oops 2\n");
        assertEquals(1, r.run().code(), r.run().toString());
        List<Map<String, Object>> rows = LineProtocolRuns.rows(testkit.server(), "qcr");
        assertEquals(List.of("o\rx"), rows.stream().map(m -> m.get("s")).toList());
        assertEquals(1, r.rejects().size(), r.rejects().toString());
        assertTrue(r.rejects().get(0).contains("\"line\":2"), r.rejects().get(0));
        assertTrue(r.run().err().contains("line 2, character"), r.run().err());
        assertTrue(r.summary().contains("\"rowsRead\":2,"), r.summary());
    }
}
