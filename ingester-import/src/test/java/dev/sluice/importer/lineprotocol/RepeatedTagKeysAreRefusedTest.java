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
 * A line giving a tag key twice is refused, as InfluxDB refuses it ("duplicate tags"); a field key given twice keeps
 * its last value, as InfluxDB keeps it.
 */
class RepeatedTagKeysAreRefusedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aRepeatedTagKeyIsARejectedLineAndARepeatedFieldKeepsItsLastValue() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "dup.lp",
                "duptag,b=2,c=3,b=1 value=1i 1\nduptag,b=5 value=2i,value=3i 2\n");
        assertEquals(1, r.run().code(), r.run().toString());
        List<Map<String, Object>> rows = LineProtocolRuns.rows(testkit.server(), "duptag");
        assertEquals(1, rows.size(), rows.toString());
        assertEquals("5", rows.get(0).get("b"));
        assertEquals(3L, rows.get(0).get("value"));
        assertEquals(1, r.rejects().size(), r.rejects().toString());
        assertTrue(r.rejects().get(0).contains("\"line\":1") && r.rejects().get(0).contains("tag 'b' is given twice"),
                r.rejects().get(0));
    }
}
