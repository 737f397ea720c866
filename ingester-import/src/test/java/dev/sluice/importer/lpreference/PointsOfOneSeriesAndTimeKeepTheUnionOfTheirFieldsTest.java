package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two points of one series and time carrying different fields: InfluxDB keeps the union of their fields, and so does
 * a table the import creates for line protocol (no field of the earlier point is lost to the later point's nulls).
 */
class PointsOfOneSeriesAndTimeKeepTheUnionOfTheirFieldsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void theEarlierPointsFieldIsKeptBesideTheLaterPointsField() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "merge",
                "merge,host=a v=1 1000\nmerge,host=a w=2 1000\n".getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "merge");
        assertEquals(1, rows.size(), rows.toString());
        assertEquals(1.0, rows.get(0).get("v"), rows.toString());
        assertEquals(2.0, rows.get(0).get("w"), rows.toString());
    }

    @Test
    void anAppendModeImportKeepsBothPointsAsRows() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "appended",
                "appended,host=a v=1 1000\nappended,host=a w=2 1000\n".getBytes(UTF_8), "--append-mode");
        assertEquals(0, r.run().code(), r.toString());
        assertEquals(2, LpProbe.rowsByTime(testkit.server(), "appended").size());
    }
}
