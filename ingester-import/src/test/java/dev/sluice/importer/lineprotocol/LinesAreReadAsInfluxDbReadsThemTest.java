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
 * Lines InfluxDB refuses are rejected lines here, and lines it accepts are stored as it reads them: leading spaces
 * and tabs, blank lines and comments, doubled backslashes in names, signs on numbers.
 */
class LinesAreReadAsInfluxDbReadsThemTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void controlCharactersInNamesAreRefused() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "ctl.lp",
                "ctl f\u0001k=1 1\nctl,t=a\u0002b v=2 2\nctl v=3 3\n");
        assertEquals(1, r.run().code(), r.run().toString());
        List<Map<String, Object>> rows = LineProtocolRuns.rows(testkit.server(), "ctl");
        assertEquals(List.of(3.0), rows.stream().map(m -> m.get("v")).toList());
        assertEquals(2, r.rejects().size(), r.rejects().toString());
        assertTrue(r.rejects().get(0).contains("\"line\":1") && r.rejects().get(0).contains("control character U+0001"),
                r.rejects().get(0));
        assertTrue(r.rejects().get(1).contains("\"line\":2") && r.rejects().get(1).contains("control character U+0002"),
                r.rejects().get(1));
    }

    @Test
    void leadingBlanksBlankLinesAndCommentsAreReadAsInfluxDbReadsThem() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "ws.lp",
                "\tws v=1 1\n  \t \n   # a comment\n \t ws v=2 2\n\n");
        assertEquals(0, r.run().code(), r.run().toString());
        assertEquals(List.of(1.0, 2.0), LineProtocolRuns.rows(testkit.server(), "ws").stream()
                .map(m -> m.get("v")).toList());
        assertTrue(r.summary().contains("\"rowsRead\":2,"), r.summary());
    }

    @Test
    void aDoubledBackslashInANameIsOneAndANameEndingInABackslashIsRefused() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "bs.lp",
                "bs,t=a\\\\b v=1 1\nbs,t=c\\\\ v=2 2\nbs,t=d\\x v=3 3\n");
        assertEquals(1, r.run().code(), r.run().toString());
        assertEquals(List.of("a\\b", "d\\x"), LineProtocolRuns.rows(testkit.server(), "bs").stream()
                .map(m -> m.get("t")).toList());
        assertEquals(1, r.rejects().size(), r.rejects().toString());
        assertTrue(r.rejects().get(0).contains("\"line\":2") && r.rejects().get(0).contains("ends with a backslash"),
                r.rejects().get(0));
    }

    @Test
    void aPlusSignBeforeANumberIsRefused() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "plus.lp",
                "plus v=+1 1\nplus v=1e+3 2\nplus v=+1i 3\n");
        assertEquals(1, r.run().code(), r.run().toString());
        assertEquals(List.of(1000.0), LineProtocolRuns.rows(testkit.server(), "plus").stream()
                .map(m -> m.get("v")).toList());
        assertEquals(2, r.rejects().size(), r.rejects().toString());
    }
}
