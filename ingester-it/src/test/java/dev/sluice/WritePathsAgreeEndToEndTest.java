package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.data.VectorType;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Rows of every type written through the regular, streaming and bulk paths are stored with the same values in the
 * testkit (which decodes independently); split, multi-table, concurrent, large and compressed writes lose and
 * duplicate nothing.
 */
@SharesJvm
class WritePathsAgreeEndToEndTest extends DefaultTestkitTest {
    static final String SURR = "\uD83D\uDE00";

    static TableSchema allTypes(String name) {
        return allTypes(name, true);
    }

    static TableSchema allTypes(String name, boolean json) {
        TableSchema.Builder b = TableSchema.newBuilder(name).addTag("h", DataType.String).addTag("id", DataType.Int64);
        for (DataType t : DataType.values()) {
            if ((t == DataType.Json || t == DataType.Vector) && !json) {
                continue;
            }
            if (t == DataType.Decimal128) {
                b.addColumn("c_" + t, SemanticType.Field, t, new DecimalType(38, 4));
            } else if (t == DataType.Vector) {
                b.addColumn("c_" + t, SemanticType.Field, t, new VectorType(2));
            } else {
                b.addField("c_" + t, t);
            }
        }
        return b.addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static String randomText(Random r, int max) {
        int n = r.nextInt(max + 1);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(7)) {
                case 0: b.append((char) r.nextInt(0x80)); break;
                case 1: b.append((char) (0x80 + r.nextInt(0x80))); break;
                case 2: b.append('✓'); break;
                case 3: b.append(SURR); break;
                case 4: b.append('\u0000'); break;
                default: b.append((char) ('a' + r.nextInt(26)));
            }
        }
        return b.toString();
    }

    static Object value(DataType t, Random r, int row) {
        if (r.nextInt(6) == 0) {
            return null;
        }
        switch (t) {
            case Bool: return r.nextBoolean();
            case Int8: return (byte) r.nextInt();
            case Int16: return (short) r.nextInt();
            case Int32: return r.nextBoolean() ? Integer.MIN_VALUE + r.nextInt(3) : r.nextInt();
            case Int64: return r.nextBoolean() ? Long.MIN_VALUE : r.nextLong();
            case UInt8: return r.nextInt(256);
            case UInt16: return r.nextInt(65_536);
            case UInt32: return r.nextBoolean() ? 4_294_967_295L : (long) r.nextInt() & 0xFFFF_FFFFL;
            case UInt64: return r.nextBoolean() ? BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE) : new BigInteger(64, r);
            case Float32: { float[] f = {Float.NaN, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 1.25f, Float.MIN_VALUE};
                return f[r.nextInt(f.length)]; }
            case Float64: { double[] d = {Double.NaN, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.1, Double.MAX_VALUE};
                return d[r.nextInt(d.length)]; }
            case Binary: { byte[] b = new byte[r.nextInt(4) == 0 ? 200 + r.nextInt(400) : r.nextInt(20)]; r.nextBytes(b); return b; }
            case String: return r.nextInt(10) == 0 ? randomText(r, 3000) : randomText(r, 80);
            case Json: return r.nextBoolean() ? "{\"a\":\"é✓" + SURR + "\",\"n\":" + r.nextInt() + "}" : "[1,2,{\"b\":null}]";
            case Date: return r.nextInt(200_000) - 100_000;
            case Decimal128: return new BigDecimal(new BigInteger(100, r), 4).multiply(BigDecimal.valueOf(r.nextBoolean() ? 1 : -1));
            case Vector: return new float[] {r.nextFloat(), Float.NaN};
            case TimestampNanosecond: return r.nextLong() / 4;
            case TimestampMicrosecond: case TimestampMillisecond: case TimestampSecond: return r.nextLong() / 1_000_000_000L;
            case TimeSecond: return (long) r.nextInt(86_400);
            case TimeMillisecond: return (long) r.nextInt(86_400_000);
            case TimeMicrosecond: return r.nextLong() % 86_400_000_000L & Long.MAX_VALUE;
            default: return (r.nextLong() & Long.MAX_VALUE) % 86_400_000_000_000L;
        }
    }

    static List<Object[]> rows(TableSchema s, long seed, int n) {
        Random r = new Random(seed);
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Object[] row = new Object[s.columnCount()];
            row[0] = randomText(r, 12);
            row[1] = (long) i;
            for (int c = 2; c < row.length - 1; c++) {
                row[c] = value(s.column(c).dataType(), r, i);
            }
            row[row.length - 1] = 1_700_000_000_000L + i;
            out.add(row);
        }
        return out;
    }

    static Table table(TableSchema s, List<Object[]> rows) {
        Table t = Table.from(s);
        rows.forEach(t::addRow);
        return t;
    }

    static Map<Long, Map<String, Object>> byId(String table) {
        Map<Long, Map<String, Object>> out = new TreeMap<>();
        for (Map<String, Object> r : server.rows(table)) {
            Object prev = out.put(((Number) r.get("id")).longValue(), r);
            assertEquals(null, prev, "duplicate id " + r.get("id") + " in " + table);
        }
        return out;
    }

    static boolean same(Object a, Object b) {
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return Arrays.equals(x, y);
        }
        if (a instanceof float[] x && b instanceof float[] y) {
            return Arrays.equals(x, y);
        }
        return Objects.equals(a, b);
    }

    static String show(Object o) {
        if (o instanceof byte[] b) {
            return "bytes" + Arrays.toString(b);
        }
        if (o instanceof float[] f) {
            return Arrays.toString(f);
        }
        return o + (o == null ? "" : " (" + o.getClass().getSimpleName() + ")");
    }

    /** Regular and bulk rows stored for the same input must be the same, and text exactly the UTF-8 given. */
    static void compare(String regular, String bulk, TableSchema s, List<Object[]> rows) {
        Map<Long, Map<String, Object>> a = byId(regular);
        Map<Long, Map<String, Object>> b = byId(bulk);
        assertEquals(rows.size(), a.size(), "rows stored by the regular path");
        assertEquals(rows.size(), b.size(), "rows stored by the bulk path");
        List<String> diffs = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> ra = a.get((long) i);
            Map<String, Object> rb = b.get((long) i);
            for (int c = 0; c < s.columnCount(); c++) {
                String name = s.column(c).name();
                if (!same(ra.get(name), rb.get(name)) && diffs.size() < 30) {
                    diffs.add("row " + i + " " + name + ": regular " + show(ra.get(name)) + " bulk " + show(rb.get(name)));
                }
                DataType t = s.column(c).dataType();
                Object given = rows.get(i)[c];
                if (t == DataType.String && given != null) {
                    String want = new String(((String) given).getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
                    if (!want.equals(ra.get(name)) && diffs.size() < 30) {
                        diffs.add("row " + i + " " + name + ": regular stored " + show(ra.get(name)) + " want " + want);
                    }
                }
                if (given == null && ra.get(name) != null && diffs.size() < 30) {
                    diffs.add("row " + i + " " + name + ": null stored as " + show(ra.get(name)));
                }
            }
        }
        assertEquals(List.of(), diffs);
    }

    @Test
    void regularStreamAndBulkStoreTheSameValuesForEveryType() throws Exception {
        TableSchema reg = allTypes("tr_reg", false);
        TableSchema str = allTypes("tr_str", false);
        TableSchema blk = allTypes("tr_blk", false);
        List<Object[]> rows = rows(reg, 42, 3000);
        Result<WriteOk, Err> r = db.write(List.of(table(reg, rows)), WriteOp.Insert, Context.newBuilder().build()).join();
        assertTrue(r.isOk(), r::toString);
        StreamWriter<Table, WriteOk> sw = db.streamWriter();
        for (int k = 0; k < rows.size(); k += 700) {
            sw.write(table(str, rows.subList(k, Math.min(rows.size(), k + 700))));
        }
        assertEquals(rows.size(), sw.completed().orTimeout(60, TimeUnit.SECONDS).join().affectedRows());
        try (BulkStreamWriter w = db.bulkStreamWriter(blk, BulkWrite.Config.newBuilder().build(), Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(1000);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                batch.addRow(rows.get(i));
                if (i % 1000 == 999) {
                    acks.add(w.writeNext());
                }
            }
            for (CompletableFuture<Integer> a : acks) {
                a.orTimeout(60, TimeUnit.SECONDS).join();
            }
            w.completed();
        }
        compare("tr_reg", "tr_blk", reg, rows);
        compare("tr_str", "tr_blk", reg, rows);
    }

    @Test
    void splitRegularWritesMultiTableWritesAndDeletesLoseAndDuplicateNothing() throws Exception {
        try (GreptimeTestServer small = GreptimeTestServer.builder().maxMessageBytes(64 * 1024).start();
             GreptimeDB client = GreptimeDB.create(GreptimeOptions.newBuilder(small.endpoint(), "public")
                     .maxMessageSize(60 * 1024).requestTimeout(Duration.ofSeconds(30)).build())) {
            TableSchema a = allTypes("split_a");
            TableSchema b = TableSchema.newBuilder("split_b").addTag("h", DataType.String).addTag("id", DataType.Int64)
                    .addField("m", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
            List<Object[]> rowsA = rows(a, 7, 2500);
            Table tb = Table.from(b);
            Random r = new Random(8);
            for (int i = 0; i < 400; i++) {
                tb.addRow("h" + i % 3, (long) i, i == 77 ? "L".repeat(50_000) : randomText(r, 500), 1L + i);
            }
            Result<WriteOk, Err> res = client.write(List.of(table(a, rowsA), tb), WriteOp.Insert, Context.newBuilder().build()).join();
            assertTrue(res.isOk(), res::toString);
            assertEquals(2900, res.getOk().affectedRows());
            assertEquals(2500, small.rowCount("split_a"));
            assertEquals(400, small.rowCount("split_b"));
            Map<Long, Map<String, Object>> got = new TreeMap<>();
            for (Map<String, Object> row : small.rows("split_b")) {
                got.put(((Number) row.get("id")).longValue(), row);
            }
            assertEquals("L".repeat(50_000), got.get(77L).get("m"));
            // delete every other row of split_a, by its tags and time index (fields dropped on the wire)
            List<Object[]> del = new ArrayList<>();
            for (int i = 0; i < rowsA.size(); i += 2) {
                Object[] row = rowsA.get(i).clone();
                for (int c = 2; c < row.length - 1; c++) {
                    row[c] = null;
                }
                del.add(row);
            }
            Result<WriteOk, Err> d = client.write(List.of(table(a, del)), WriteOp.Delete, Context.newBuilder().build()).join();
            assertTrue(d.isOk(), d::toString);
            assertEquals(1250, small.rowCount("split_a"));
            for (Map<String, Object> row : small.rows("split_a")) {
                assertEquals(1, ((Number) row.get("id")).longValue() % 2, "only odd ids remain: " + row.get("id"));
            }
        }
    }

    @Test
    void manyThreadsWritingTablesThroughOneClientStoreEveryRowOnce() throws Exception {
        TableSchema s = TableSchema.newBuilder("threads").addTag("h", DataType.String).addTag("id", DataType.Int64)
                .addField("m", DataType.String).addField("f", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                int worker = w;
                fs.add(pool.submit(() -> {
                    Random r = new Random(worker);
                    for (int b = 0; b < 20; b++) {
                        Table t = Table.from(s);
                        for (int i = 0; i < 250; i++) {
                            long id = ((long) worker * 20 + b) * 250 + i;
                            t.addRow("w" + worker, id, i % 50 == 0 ? "x".repeat(20_000) : "m" + id, r.nextBoolean() ? null : (double) id, id);
                        }
                        Result<WriteOk, Err> res = db.write(t).join();
                        assertTrue(res.isOk(), res::toString);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        Map<Long, Map<String, Object>> got = byId("threads");
        assertEquals(8 * 20 * 250, got.size());
        for (Map.Entry<Long, Map<String, Object>> e : got.entrySet()) {
            long id = e.getKey();
            Object m = e.getValue().get("m");
            assertEquals(id % 250 % 50 == 0 ? "x".repeat(20_000) : "m" + id, m, "id " + id);
            Object f = e.getValue().get("f");
            assertTrue(f == null || ((Number) f).doubleValue() == id);
        }
    }

    @Test
    void requestsOverOneMebibyteAndSingleHugeRowsWithAndWithoutGrpcCompression() throws Exception {
        TableSchema s = TableSchema.newBuilder("big_reg").addTag("h", DataType.String).addTag("id", DataType.Int64)
                .addField("m", DataType.String).addField("b", DataType.Binary).addField("f", DataType.Float32)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Random r = new Random(77);
        long id = 0;
        Map<Long, Object[]> want = new TreeMap<>();
        for (dev.sluice.write.Compression c : new dev.sluice.write.Compression[] {dev.sluice.write.Compression.None,
            dev.sluice.write.Compression.Gzip, dev.sluice.write.Compression.Zstd}) {
            Table t = Table.from(s);
            // three 3 MiB strings and two 2 MiB blobs per compression: requests over 1 MiB and single huge rows
            for (int i = 0; i < 3000; i++) {
                String m = i % 1000 == 5 ? randomText(r, 10) + "Q".repeat(3 << 20) + SURR : randomText(r, 200);
                byte[] b = new byte[i % 1500 == 7 ? (2 << 20) + 3 : r.nextInt(30)];
                r.nextBytes(b);
                Object[] row = {"h" + c, id, i % 9 == 0 ? null : m, i % 11 == 0 ? null : b,
                    i % 4 == 0 ? null : (Object) r.nextFloat(), 1_000L + id};
                t.addRow(row);
                want.put(id++, row);
            }
            Result<WriteOk, Err> res = db.write(List.of(t), WriteOp.Insert, Context.newBuilder().compression(c).build()).join();
            assertTrue(res.isOk(), c + " " + res);
            assertEquals(3000, res.getOk().affectedRows());
        }
        Map<Long, Map<String, Object>> got = byId("big_reg");
        assertEquals(want.size(), got.size());
        for (Map.Entry<Long, Object[]> e : want.entrySet()) {
            Map<String, Object> row = got.get(e.getKey());
            Object[] w = e.getValue();
            String m = w[2] == null ? null
                    : new String(((String) w[2]).getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            assertEquals(m, row.get("m"), "id " + e.getKey());
            assertTrue(same(w[3], row.get("b")), "id " + e.getKey() + " b " + show(row.get("b")));
            Object f = row.get("f");
            assertEquals(w[4] == null ? null : ((Float) w[4]).doubleValue(), f == null ? null : ((Number) f).doubleValue(),
                    "id " + e.getKey());
        }
    }
}
