package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Context;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Line protocol files end to end: one table per measurement over the regular path. */
class LineProtocolImportTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static Map<String, DataType> types(String table) {
        Map<String, DataType> out = new HashMap<>();
        for (TableSchema.Column c : testkit.server().schema(table).columns()) {
            out.put(c.name(), c.dataType());
        }
        return out;
    }

    @Test
    void eachMeasurementIsATableAndLinesWithNewFieldsAddColumns() throws IOException {
        Path f = dir.resolve("points.lp");
        Files.writeString(f, "# sensors\n"
                + "weather,location=us-midwest temperature=82 1465839830100400200\n"
                + "\n"
                + "weather,location=us\\ east,source=sat temperature=75.5,humidity=40i,ok=true,note=\"hot \\\"day\\\"\""
                + " 1465839830100400300\n"
                + "cpu,host=a usage=0.5,count=3u 1465839830100400200\n"
                + "weather,location=eu temperature=70,wind=12.5 1465839830100400400\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(0, r.code(), r.toString());

        Map<String, DataType> w = types("weather");
        assertEquals(Map.of("location", DataType.String, "source", DataType.String, "temperature", DataType.Float64,
                "humidity", DataType.Int64, "ok", DataType.Bool, "note", DataType.String, "wind", DataType.Float64,
                "greptime_timestamp", DataType.TimestampNanosecond), w);
        TableSchema ws = testkit.server().schema("weather");
        assertEquals(SemanticType.Tag, ws.column(ws.indexOf("location")).semanticType());
        assertEquals(SemanticType.Tag, ws.column(ws.indexOf("source")).semanticType());
        assertEquals("greptime_timestamp", ws.column(ws.timestampIndex()).name());

        List<Map<String, Object>> rows = testkit.server().rows("weather");
        assertEquals(3, rows.size());
        Map<String, Object> a = rows.get(0);
        assertEquals("us-midwest", a.get("location"));
        assertEquals(82.0, a.get("temperature"));
        assertNull(a.get("humidity"));
        assertNull(a.get("source"));
        assertEquals(1465839830100400200L, a.get("greptime_timestamp"));
        Map<String, Object> b = rows.get(1);
        assertEquals("us east", b.get("location"));
        assertEquals("sat", b.get("source"));
        assertEquals(75.5, b.get("temperature"));
        assertEquals(40L, b.get("humidity"));
        assertEquals(true, b.get("ok"));
        assertEquals("hot \"day\"", b.get("note"));
        Map<String, Object> c = rows.get(2);
        assertEquals("eu", c.get("location"));
        assertEquals(12.5, c.get("wind"));
        assertEquals(1465839830100400400L, c.get("greptime_timestamp"));

        List<Map<String, Object>> cpu = testkit.server().rows("cpu");
        assertEquals(1, cpu.size());
        assertEquals(0.5, cpu.get(0).get("usage"));
        assertEquals(BigInteger.valueOf(3), cpu.get(0).get("count"));
        assertEquals(DataType.UInt64, types("cpu").get("count"));
    }

    @Test
    void precisionSetsTheUnitAndLinesWithoutATimestampGetTheImportsTime() throws IOException {
        Path f = dir.resolve("ms.lp");
        Files.writeString(f, "ms_points,k=a v=1 1700000000123\nms_points,k=b v=2\n");
        long before = System.currentTimeMillis();
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--precision", "ms", f.toString()));
        long after = System.currentTimeMillis();
        assertEquals(0, r.code(), r.toString());
        assertEquals(DataType.TimestampMillisecond, types("ms_points").get("greptime_timestamp"));
        List<Map<String, Object>> rows = testkit.server().rows("ms_points");
        assertEquals(1700000000123L, rows.get(0).get("greptime_timestamp"));
        long t = (Long) rows.get(1).get("greptime_timestamp");
        assertTrue(t >= before && t <= after, t + " not in " + before + ".." + after);
    }

    @Test
    void badLinesAreRejectedWithTheirLineAndAFieldTypeConflictIsOne() throws IOException {
        Path f = dir.resolve("bad.lp");
        Files.writeString(f, "bad_lp,k=a v=1 1\nbad_lp,k=b v=\"text\" 2\nbad_lp,k=c v= 3\nbad_lp,k=d v=4i 4\n");
        Path rejects = dir.resolve("lp-rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--on-error", "skip", "--rejects", rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        List<Map<String, Object>> rows = testkit.server().rows("bad_lp");
        rows = rows.stream().sorted(java.util.Comparator.comparing(m -> (String) m.get("k"))).toList();
        assertEquals(List.of("a", "d"), rows.stream().map(m -> m.get("k")).toList());
        assertEquals(4.0, rows.get(1).get("v"), "an integer into a float column loses nothing");
        List<String> rej = Files.readAllLines(rejects);
        assertEquals(2, rej.size());
        assertTrue(rej.get(0).contains("\"line\":2") && rej.get(0).contains("field type conflict: 'v' is Float64"),
                rej.get(0));
        assertTrue(rej.get(1).contains("\"line\":3") && rej.get(1).contains("has no value")
                && rej.get(1).contains("\"raw\":\"bad_lp,k=c v= 3\""), rej.get(1));

        Path g = dir.resolve("abort.lp");
        Files.writeString(g, "abort_lp v=1 1\nabort_lp v=2 2\nabort_lp v=x 3\nabort_lp v=4 4\n");
        Cli.Run a = Cli.run(Cli.at(testkit.server(), "--batch", "1", g.toString()));
        assertEquals(1, a.code(), a.toString());
        assertTrue(a.err().contains("abort.lp' line 3, character 12: field 'v': 'x' is not a float"), a.err());
        // batches of one row may be answered in either order: what matters is which rows are stored
        assertEquals(List.of(1.0, 2.0), testkit.server().rows("abort_lp").stream().map(m -> (Double) m.get("v"))
                .sorted().toList());
    }

    @Test
    void anExistingTableKeepsItsTimeIndexAndTypes() throws IOException {
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(testkit.server().endpoint(),
                "public").build())) {
            assertTrue(db.createTable(TableSchema.newBuilder("mem").addTag("host", DataType.String)
                    .addField("used", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build(),
                    Context.newBuilder().build()).join().isOk());
        }
        Path f = dir.resolve("mem.lp");
        Files.writeString(f, "mem,host=a used=5i 1700000000000000000\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(0, r.code(), r.toString());
        Map<String, Object> row = testkit.server().rows("mem").get(0);
        assertEquals(5.0, row.get("used"));
        assertEquals(1700000000000L, row.get("ts"));
        assertEquals(3, testkit.server().schema("mem").columnCount());
    }

    @Test
    void aDryRunPrintsEachMeasurementsTable() throws IOException {
        Path f = dir.resolve("dry.lp");
        Files.writeString(f, "dry_lp,k=a v=1,s=\"x\" 1000000000\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--dry-run", f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertEquals("CREATE TABLE IF NOT EXISTS \"dry_lp\" (\n"
                + "  \"k\" STRING,\n"
                + "  \"v\" DOUBLE,\n"
                + "  \"s\" STRING,\n"
                + "  \"greptime_timestamp\" TIMESTAMP(9) NOT NULL,\n"
                + "  TIME INDEX (\"greptime_timestamp\"),\n"
                + "  PRIMARY KEY (\"k\")\n"
                + ") WITH ('merge_mode' = 'last_non_null');\n"
                + "-- path: regular\n"
                + "-- first rows as stored:\n"
                + "dry_lp: k\tv\ts\tgreptime_timestamp\n"
                + "dry_lp: a\t1.0\tx\t1970-01-01T00:00:01Z\n", r.out());
        assertTrue(!testkit.server().tables().contains("dry_lp"));
    }

    @Test
    void verifyComparesEachMeasurementTablesCountWithItsCountBeforePlusTheRowsAcknowledged() throws IOException {
        Path before = dir.resolve("before.lp");
        Files.writeString(before, "vmem,host=a used=1i 1000\n");
        assertEquals(0, Cli.run(Cli.at(testkit.server(), "-q", before.toString())).code());
        Path f = dir.resolve("verified.lp");
        Files.writeString(f, "vcpu,host=a usage=0.5 1000\nvcpu,host=b usage=0.7 1000\nvmem,host=a used=2i 2000\n"
                + "vcpu,host=a usage=0.6 2000\nvmem,host=b used=3i 2000\n");
        Path json = dir.resolve("verified.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--verify", "--batch", "2", "--summary-json", json.toString(),
                f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("verify: count(*) = 6 as expected"), r.out());
        assertTrue(Files.readString(json).contains("\"verifyExpected\":6,\"verifyOk\":true"), Files.readString(json));

        // Two lines of one series and time: the table keeps one, and verify says which table differs.
        Path dup = dir.resolve("dup.lp");
        Files.writeString(dup, "vdup,host=a usage=0.5 1000\nvdup,host=a usage=0.6 1000\nvok,host=a v=1 1000\n");
        Cli.Run mismatch = Cli.run(Cli.at(testkit.server(), "--verify", dup.toString()));
        assertEquals(3, mismatch.code(), mismatch.toString());
        assertTrue(mismatch.err().contains("table 'vdup' holds 1 rows, expected 2"), mismatch.err());
        assertTrue(!mismatch.err().contains("'vok'"), mismatch.err());
    }
}
