package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Booleans, escapes, precisions, comments and blank lines are read as InfluxDB's line protocol reference says. */
class ValuesAreReadAsTheReferenceSpellsThemTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void everyBooleanSpellingOfTheReferenceIsABoolean() throws Exception {
        String[] trues = {"t", "T", "true", "True", "TRUE"};
        String[] falses = {"f", "F", "false", "False", "FALSE"};
        StringBuilder sb = new StringBuilder();
        long t = 1;
        for (String s : trues) {
            sb.append("bools,k=").append(t).append(" b=").append(s).append(' ').append(t++).append('\n');
        }
        for (String s : falses) {
            sb.append("bools,k=").append(t).append(" b=").append(s).append(' ').append(t++).append('\n');
        }
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "bools", sb.toString().getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        TableSchema s = testkit.server().schema("bools");
        assertEquals(DataType.Bool, s.column(s.indexOf("b")).dataType());
        assertEquals(List.of(true, true, true, true, true, false, false, false, false, false),
                LpProbe.rowsByTime(testkit.server(), "bools").stream().map(m -> m.get("b")).toList());
    }

    @Test
    void escapedCommaAndSpaceInATagKeyAndALiteralBackslashInATagValueArriveAsWritten() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "escm",
                ("escm,a\\,b\\ c=a\\b v=1 1\n").getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "escm");
        assertEquals(1, rows.size(), r.toString());
        assertEquals("a\\b", rows.get(0).get("a,b c"), "a backslash before an ordinary character is kept: " + rows);
    }

    @Test
    void anEqualsSignInAFieldKeyIsEscapedAndAStringMayHoldCommasSpacesAndHashes() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "eqk",
                "eqk a\\=b=1i,s=\"x, y = #z\" 1\n".getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        Map<String, Object> row = LpProbe.rowsByTime(testkit.server(), "eqk").get(0);
        assertEquals(1L, row.get("a=b"));
        assertEquals("x, y = #z", row.get("s"));
    }

    @Test
    void secondsPrecisionStoresTheSecondsAsWritten() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "secs",
                "secs v=1 1700000000\nsecs v=2 -5\n".getBytes(UTF_8), "--precision", "s");
        assertEquals(0, r.run().code(), r.toString());
        TableSchema s = testkit.server().schema("secs");
        assertEquals(DataType.TimestampSecond, s.column(s.timestampIndex()).dataType());
        assertEquals(List.of(-5L, 1700000000L), LpProbe.rowsByTime(testkit.server(), "secs").stream()
                .map(m -> m.get("greptime_timestamp")).toList());
    }

    @Test
    void commentsAndBlankLinesCountInLineNumbers() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "cmt",
                "# header\n\ncmt v=1 1\n   \n# v=x\ncmt v=nope 2\ncmt v=3 3\n".getBytes(UTF_8));
        assertEquals(1, r.run().code(), r.toString());
        assertEquals(2, LpProbe.rowsByTime(testkit.server(), "cmt").size(), r.toString());
        assertEquals(1, r.rejects().size(), r.toString());
        assertTrue(r.rejects().get(0).contains("\"line\":6"), r.toString());
    }

    @Test
    void floatSpellingsOfTheReferenceAreFloats() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "flt",
                "flt v=1e3 1\nflt v=-1.5E-2 2\nflt v=0.5 3\nflt v=-0 4\n".getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        assertEquals(List.of(1000.0, -0.015, 0.5, -0.0), LpProbe.rowsByTime(testkit.server(), "flt").stream()
                .map(m -> m.get("v")).toList());
    }
}
