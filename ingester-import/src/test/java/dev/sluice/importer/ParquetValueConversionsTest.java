package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Context;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Parquet values converted to an override or to an existing table's column: kept when they fit, rejected otherwise. */
class ParquetValueConversionsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    /** Ten rows in row groups of three: id 1..10, d = id / 2.0 (null for id 4), l = id * 1e9, s = "s" + id. */
    Path file(String name) throws IOException {
        Path f = dir.resolve(name + ".parquet");
        ParquetFiles.write(f, "message m { required int64 ts (TIMESTAMP(MILLIS,true)); required int64 id;"
                + " optional double d; optional int64 l; optional binary s (STRING); }",
                CompressionCodecName.ZSTD, WriterVersion.PARQUET_2_0, 3, (g, out) -> {
                    for (long i = 1; i <= 10; i++) {
                        Group row = g.newGroup().append("ts", T0 + i).append("id", i).append("l", i * 1_000_000_000L)
                                .append("s", "s" + i);
                        if (i != 4) {
                            row.append("d", i / 2.0);
                        }
                        out.accept(row);
                    }
                });
        return f;
    }

    @Test
    void nullsAcrossRowGroupsArriveCellByCell() throws IOException {
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--batch", "4", file("groups").toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Map<String, Object>> rows = new TreeMap<>();
        testkit.server().rows("groups").forEach(m -> rows.put((Long) m.get("id"), m));
        assertEquals(10, rows.size());
        for (long i = 1; i <= 10; i++) {
            Map<String, Object> m = rows.get(i);
            assertEquals(T0 + i, m.get("ts"));
            assertEquals(i == 4 ? null : i / 2.0, m.get("d"), "row " + i);
            assertEquals(i * 1_000_000_000L, m.get("l"));
            assertEquals("s" + i, m.get("s"));
        }
    }

    @Test
    void aDoubleOverriddenAsAnIntegerRejectsFractionsAndKeepsWholeNumbers() throws IOException {
        Path f = file("to_int");
        Path rejects = dir.resolve("to_int.rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "d:Int64", "--on-error", "skip",
                "--rejects", rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        Map<Long, Object> d = new TreeMap<>();
        testkit.server().rows("to_int").forEach(m -> d.put((Long) m.get("id"), m.get("d")));
        // whole numbers (2/2.0 .. 10/2.0) and the null are stored; halves are rejected, not cut
        assertEquals(List.of(2L, 4L, 6L, 8L, 10L), List.copyOf(d.keySet()), d.toString());
        assertEquals(1L, d.get(2L));
        assertNull(d.get(4L));
        assertEquals(5L, d.get(10L));
        assertEquals(5, Files.readAllLines(rejects).size());
    }

    @Test
    void anExistingInt32ColumnRejectsInt64ValuesOutsideItsRange() throws IOException {
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(testkit.server().endpoint(), "public").build())) {
            assertTrue(db.createTable(TableSchema.newBuilder("narrow_pq").addTag("id", DataType.Int64)
                    .addField("l", DataType.Int32).addField("d", DataType.Float32).addField("s", DataType.String)
                    .addTimestamp("ts", DataType.TimestampSecond).build(), Context.newBuilder().build()).join().isOk());
        }
        Path f = file("narrow_pq");
        Path rejects = dir.resolve("narrow_pq.rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--on-error", "skip", "--rejects", rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        Map<Long, Object> l = new TreeMap<>();
        testkit.server().rows("narrow_pq").forEach(m -> l.put(((Number) m.get("id")).longValue(), m.get("l")));
        // 1e9 and 2e9 - 1 fit an Int32; from 3e9 on they do not
        assertEquals(List.of(1L, 2L), List.copyOf(l.keySet()), l.toString());
        assertEquals(1_000_000_000L, ((Number) l.get(1L)).longValue());
        assertEquals(2_000_000_000L, ((Number) l.get(2L)).longValue());
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(8, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).contains("\"column\":\"l\""), lines.get(0));
    }
}
