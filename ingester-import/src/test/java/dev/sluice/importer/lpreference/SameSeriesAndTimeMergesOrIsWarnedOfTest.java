package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
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
 * Two points of one series and time carrying different fields: InfluxDB keeps the union of their fields. The import
 * either keeps both fields or says, before writing, that rows collapse; it never loses a field without a word.
 */
class SameSeriesAndTimeMergesOrIsWarnedOfTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void twoPointsOfOneSeriesAndTimeWithDifferentFieldsKeepBothOrAreWarnedOf() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "merge",
                "merge,host=a v=1 1000\nmerge,host=a w=2 1000\n".getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "merge");
        boolean merged = rows.size() == 1 && Double.valueOf(1).equals(rows.get(0).get("v"))
                && Double.valueOf(2).equals(rows.get(0).get("w"));
        assertTrue(merged || r.run().err().contains("warning"), "stored " + rows + "\n" + r);
    }

    @Test
    void lineProtocolPointsSharingSeriesAndTimeAreWarnedOfInTheDryRun() throws Exception {
        Path f = dir.resolve("dup.lp");
        Files.writeString(f, "ldup,host=a v=1 1000\nldup,host=a v=2 1000\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--dry-run", f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.err().contains("warning:"), r.toString());
    }

    @Test
    void lineProtocolPointsSharingSeriesAndTimeAreWarnedOfBeforeWritingAndTheSummarySaysAcknowledged() throws Exception {
        Path json = dir.resolve("ldrun.json");
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "ldrun",
                "ldrun,host=a v=1 1000\nldrun,host=a v=2 1000\nldrun,host=b v=3 1000\n".getBytes(UTF_8),
                "--summary-json", json.toString());
        assertEquals(0, r.run().code(), r.toString());
        assertEquals(2, testkit.server().rows("ldrun").size(), r.toString());
        assertTrue(r.run().err().contains("warning: 1 of the 3 sampled points of '")
                && r.run().err().contains("ldrun.lp'"), r.toString());
        assertTrue(r.run().err().contains("'v'"), "names the field the points disagree on: " + r);
        assertTrue(r.run().out().contains("3 written (acknowledged)") && r.run().out().contains("one row per series"),
                r.toString());
        assertTrue(Files.readString(json).contains("\"warnings\""), Files.readString(json));
    }

    @Test
    void anAppendModeImportKeepsEveryPointAndIsNotWarned() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "ldkeep",
                "ldkeep,host=a v=1 1000\nldkeep,host=a v=2 1000\n".getBytes(UTF_8), "--append-mode");
        assertEquals(0, r.run().code(), r.toString());
        assertEquals(2, testkit.server().rows("ldkeep").size(), r.toString());
        assertTrue(!r.run().err().contains("warning:"), r.toString());
    }
}
