package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whitespace before the measurement is passed over, as InfluxDB's parser passes it over: {@code
 * ParsePointsWithPrecision} in {@code models/points.go} of influxdata/influxdb calls {@code skipWhitespace} (spaces,
 * tabs and NUL bytes) on each line before parsing it, skips a line that is then empty, and treats one that then
 * starts with {@code #} as a comment. Such lines hold no point: the summary counts them as skipped.
 */
class LeadingWhitespaceIsSkippedAsInfluxDbSkipsItTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aLeadingTabOrSpaceBeforeTheMeasurementIsPassedOver() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "leadtab",
                "leadtab,k=a v=1 1\n\tleadtab,k=b v=2 2\n  leadtab,k=c v=3 3\n".getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "leadtab");
        assertEquals(List.of("a", "b", "c"), rows.stream().map(m -> m.get("k")).toList(), r.toString());
        assertTrue(r.rejects().isEmpty(), r.toString());
    }

    @Test
    void linesOfOnlyWhitespaceAndCommentsAreCountedAsSkipped() throws Exception {
        Path json = dir.resolve("summary.json");
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "blanks",
                "blanks v=1 1\n \t \n\n\t# a comment\nblanks v=2 2\n".getBytes(UTF_8), "--summary-json",
                json.toString());
        assertEquals(0, r.run().code(), r.toString());
        assertEquals(2, testkit.server().rows("blanks").size(), r.toString());
        assertTrue(r.run().out().contains("3 lines held no row"), r.toString());
        assertTrue(Files.readString(json).contains("\"linesWithoutRow\":3"), Files.readString(json));
    }
}
