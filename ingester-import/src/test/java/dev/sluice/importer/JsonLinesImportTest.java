package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class JsonLinesImportTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void flatValuesKeepTheirJsonTypesAndNestedValuesGoToAJsonColumn() throws IOException {
        Path f = dir.resolve("events.jsonl");
        Files.writeString(f, "{\"ts\":\"2024-05-01T10:00:00Z\",\"svc\":\"api\",\"n\":1,\"lat\":0.25,\"ok\":true,"
                + "\"code\":\"007\",\"attrs\":{\"k\":[1,2,{\"x\":null}]}}\n"
                + "\n"
                + "{\"ts\":\"2024-05-01T10:00:01.250Z\",\"svc\":\"web\",\"n\":-5,\"lat\":3,\"ok\":false,"
                + "\"code\":\"x\",\"attrs\":[\"a\",\"é\"]}\n"
                + "{\"svc\":\"db\",\"ts\":\"2024-05-01T10:00:02Z\",\"n\":null,\"attrs\":null}\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "svc", f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.err().contains("regular path"), r.err());
        TableSchema s = testkit.server().schema("events");
        Map<String, DataType> types = new java.util.HashMap<>();
        s.columns().forEach(c -> types.put(c.name(), c.dataType()));
        assertEquals(DataType.TimestampMillisecond, types.get("ts"));
        assertEquals(DataType.Int64, types.get("n"));
        assertEquals(DataType.Float64, types.get("lat"));
        assertEquals(DataType.Bool, types.get("ok"));
        assertEquals(DataType.String, types.get("code"));
        assertEquals(DataType.Json, types.get("attrs"));

        List<Map<String, Object>> rows = testkit.server().rows("events");
        assertEquals(3, rows.size());
        Map<String, Object> a = rows.get(0);
        assertEquals(Instant.parse("2024-05-01T10:00:00Z").toEpochMilli(), a.get("ts"));
        assertEquals("api", a.get("svc"));
        assertEquals(1L, a.get("n"));
        assertEquals(0.25, a.get("lat"));
        assertEquals(true, a.get("ok"));
        assertEquals("007", a.get("code"));
        assertEquals("{\"k\":[1,2,{\"x\":null}]}", a.get("attrs"));
        Map<String, Object> b = rows.get(1);
        assertEquals(-5L, b.get("n"));
        assertEquals(3.0, b.get("lat"));
        assertEquals(false, b.get("ok"));
        assertEquals("[\"a\",\"é\"]", b.get("attrs"));
        Map<String, Object> c = rows.get(2);
        assertEquals("db", c.get("svc"));
        assertNull(c.get("n"));
        assertNull(c.get("lat"));
        assertNull(c.get("attrs"));
    }

    @Test
    void onTheBulkPathAKeyOutsideTheSampleIsABadRowNamingKeyLineAndTheFix() throws IOException {
        Path f = dir.resolve("late.jsonl");
        Files.writeString(f, "{\"ts\":1700000000000,\"a\":1}\n{\"ts\":1700000000001,\"a\":2,\"b\":\"new\"}\n"
                + "{\"ts\":1700000000002,\"a\":3}\n");
        Path rejects = dir.resolve("rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--sample", "1", "--on-error", "skip", "--rejects",
                rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        List<Map<String, Object>> rows = testkit.server().rows("late");
        assertEquals(List.of(1L, 3L), rows.stream().map(m -> m.get("a")).toList());
        String rej = Files.readString(rejects);
        assertTrue(rej.contains("\"line\":2") && rej.contains("\"column\":\"b\"") && rej.contains("key 'b'")
                && rej.contains("--path regular"), rej);
        assertTrue(r.err().contains("late.jsonl' line 2, column 'b'"), r.err());
        Cli.Run skipped = Cli.run(Cli.at(testkit.server(), "--sample", "1", "--skip", "b", "--table", "late_skipped", "--restart",
                f.toString()));
        assertEquals(0, skipped.code(), skipped.toString());
        assertEquals(List.of(1L, 2L, 3L), testkit.server().rows("late_skipped").stream().map(m -> m.get("a")).toList());
    }

    @Test
    void onTheRegularPathAKeyOutsideTheSampleBecomesAColumn() throws IOException {
        Path f = dir.resolve("grows.jsonl");
        Files.writeString(f, "{\"ts\":1700000000000,\"a\":1}\n{\"ts\":1700000000001,\"a\":2,\"b\":\"new\"}\n"
                + "{\"ts\":1700000000002,\"a\":3}\n{\"ts\":1700000000003,\"a\":4,\"c\":1.5,\"b\":\"again\"}\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--sample", "1", "--path", "regular", "--batch", "10", "--verify",
                f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.err().contains("key 'b' was not in the sampled rows: added as column 'b' String"), r.err());
        Map<String, DataType> types = new java.util.HashMap<>();
        testkit.server().schema("grows").columns().forEach(c -> types.put(c.name(), c.dataType()));
        assertEquals(DataType.String, types.get("b"));
        assertEquals(DataType.Float64, types.get("c"));
        Map<Long, Map<String, Object>> byA = new java.util.HashMap<>();
        testkit.server().rows("grows").forEach(m -> byA.put((Long) m.get("a"), m));
        assertEquals(4, byA.size());
        assertNull(byA.get(1L).get("b"));
        assertEquals("new", byA.get(2L).get("b"));
        assertNull(byA.get(3L).get("b"));
        assertNull(byA.get(3L).get("c"));
        assertEquals("again", byA.get(4L).get("b"));
        assertEquals(1.5, byA.get(4L).get("c"));
    }
}
