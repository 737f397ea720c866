package dev.sluice.text;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.WriteOk;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Long ASCII text (kept as the caller's String) and its neighbours, one completed Table written at once by several
 * regular writes and stream writers, and copied by several threads into bulk batches and the batching writer's
 * bulk path; every stored value is compared with the caller's string as UTF-8 would carry it.
 */
@SharesJvm
class LongTextEveryPathConcurrentlyTest {
    static String ascii(Random r, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append((char) (0x20 + r.nextInt(0x5f)));
        }
        return b.toString();
    }

    static List<String> values() {
        Random r = new Random(25);
        List<String> out = new ArrayList<>();
        String[] odd = {"é", "\uD83D\uDE00", "\uD800", "\u007F", "\u0000", "日"};
        for (int n : new int[] {63, 64, 65, 255, 256, 257, 2_000, 4_097, 65_535, 65_536, 65_537, 131_072}) {
            String a = ascii(r, n);
            out.add(a);
            for (String o : odd) {
                out.add(a.substring(o.length()) + o);
                out.add(o + a.substring(o.length()));
            }
        }
        return out;
    }

    static TableSchema schema(String name) {
        TableSchema.Builder b = TableSchema.newBuilder(name).addTag("h", DataType.String).addField("m", DataType.String);
        if (name.equals("long_text_regular")) {
            b.addField("j", DataType.Json); // JSON columns cannot be bulk written
        }
        return b.addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static Table fill(TableSchema s, List<String> vals) {
        Table t = Table.from(s);
        for (int i = 0; i < vals.size(); i++) {
            String v = vals.get(i);
            String json = "{\"m\":\"" + v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\u0000", "\\u0000")
                    .replace("\u007F", " ") + "\"}";
            String h = v.length() > 100 ? v.substring(0, 100) : v;
            if (s.columnCount() == 4) {
                t.addRow(h, v, json, 1_000L + i);
            } else {
                t.addRow(h, v, 1_000L + i);
            }
        }
        return t.complete();
    }

    static String wire(String s) {
        return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    }

    static void check(GreptimeTestServer server, String name, List<String> vals) {
        List<Map<String, Object>> rows = server.rows(name);
        assertEquals(vals.size(), rows.size(), name + " row count");
        for (Map<String, Object> row : rows) {
            int i = (int) (((Number) toMillis(row.get("ts"))).longValue() - 1_000L);
            String v = vals.get(i);
            assertEquals(wire(v), row.get("m"), name + " row " + i + " (" + v.length() + " chars)");
            assertEquals(wire(v.length() > 100 ? v.substring(0, 100) : v), row.get("h"), name + " tag row " + i);
        }
    }

    static Object toMillis(Object ts) {
        if (ts instanceof java.time.Instant in) {
            return in.toEpochMilli();
        }
        if (ts instanceof java.sql.Timestamp t) {
            return t.getTime();
        }
        return ts;
    }

    @Test
    void oneTableWrittenByEveryPathAtOnceIsStoredAsSent() throws Exception {
        List<String> vals = values();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxMessageSize(64 << 20).build());
            BulkWrite.Config bulk = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(60)).build();
            Table regular = fill(schema("long_text_regular"), vals);
            Table bulkSource = fill(schema("long_text_bulk"), vals);
            Table batched = fill(schema("long_text_batched"), vals);
            ExecutorService pool = Executors.newFixedThreadPool(6);
            List<Future<?>> tasks = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                tasks.add(pool.submit(() -> {
                    assertTrue(db.write(regular).get(60, TimeUnit.SECONDS).isOk());
                    return null;
                }));
                tasks.add(pool.submit(() -> {
                    StreamWriter<Table, WriteOk> w = db.streamWriter();
                    w.write(regular).write(regular);
                    w.completed().get(60, TimeUnit.SECONDS);
                    w.close();
                    return null;
                }));
            }
            for (Future<?> f : tasks) {
                f.get(120, TimeUnit.SECONDS);
            }
            tasks.clear();
            try (BulkStreamWriter w = db.bulkStreamWriter(bulkSource.schema(), bulk, Context.newBuilder().build())) {
                TableBufferRoot root = w.tableBufferRoot(16);
                root.addTable(bulkSource);
                assertEquals(vals.size(), w.writeNext().get(60, TimeUnit.SECONDS));
                root = w.tableBufferRoot(16);
                root.addTable(bulkSource); // the same rows again (same keys)
                assertEquals(vals.size(), w.writeNext().get(60, TimeUnit.SECONDS));
            }
            try (BatchingWriter bw = db.batchingWriter(BatchingWriter.Config.newBuilder()
                    .path(BatchingWriter.Path.Bulk).maxBatchRows(10).build())) {
                List<CompletableFuture<Void>> fs = java.util.Collections.synchronizedList(new ArrayList<>());
                for (int k = 0; k < 3; k++) {
                    tasks.add(pool.submit(() -> fs.add(bw.write(batched))));
                }
                for (Future<?> f : tasks) {
                    f.get(60, TimeUnit.SECONDS);
                }
                assertTrue(bw.flush(Duration.ofSeconds(60)));
                synchronized (fs) {
                    CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
                }
            }
            pool.shutdown();
            check(server, "long_text_regular", vals);
            check(server, "long_text_bulk", vals);
            check(server, "long_text_batched", vals);
            db.shutdownGracefully(Duration.ofSeconds(10));
        }
    }
}
