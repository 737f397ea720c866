package dev.sluice.text;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * End to end through the in-process testkit server: text written through the typed appender (mixed with
 * {@code addRow}) into a reused {@link Table}, a refilled bulk batch, and the batching writer's typed write, over
 * many refills; every stored row is compared with the test's own record of what it sent (rows keyed by a
 * unique time index), and row counts come from that record, not from the client's counters.
 */
@SharesJvm
class TextEndToEndTest {
    static GreptimeTestServer server;
    static GreptimeDB db;
    static final BulkWrite.Config BULK = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(30)).build();

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.start();
        db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
    }

    @AfterAll
    static void stop() {
        try {
            db.shutdownGracefully(Duration.ofSeconds(10));
        } finally {
            server.close();
        }
    }

    /** What the test sent for one row: host, msg (nullable), doc (nullable), v. */
    record Sent(String host, String msg, String doc, double v) {
    }

    static String[] pool(int n, String prefix) {
        String[] flavours = {"", "é", "日本語", "🚀", "ü-ß", "x"};
        String[] p = new String[n];
        for (int i = 0; i < n; i++) {
            p[i] = prefix + i + flavours[i % flavours.length];
        }
        return p;
    }

    static String longText(int seed) {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < (1 << 20) + 100) {
            sb.append("long").append(seed).append("-é日本🚀-").append(sb.length());
        }
        return sb.toString();
    }

    static String text(Object stored) {
        if (stored instanceof byte[]) {
            return new String((byte[]) stored, StandardCharsets.UTF_8);
        }
        return (String) stored;
    }

    static void assertStored(String table, Map<Long, Sent> sent, boolean hasDoc) {
        List<Map<String, Object>> rows = server.rows(table);
        assertEquals(sent.size(), rows.size(), table + ": stored rows vs rows the test sent");
        for (Map<String, Object> r : rows) {
            long ts = (Long) r.get("ts");
            Sent e = sent.get(ts);
            assertNotNull(e, table + ": a stored row with ts " + ts + " that the test never sent");
            assertEquals(e.host(), text(r.get("host")), table + " ts " + ts + " host");
            assertEquals(e.msg(), text(r.get("msg")), table + " ts " + ts + " msg");
            if (hasDoc) {
                assertEquals(e.doc(), text(r.get("doc")), table + " ts " + ts + " doc");
            }
            assertEquals(e.v(), (Double) r.get("v"), table + " ts " + ts + " v");
        }
    }

    @Test
    void aTableResetAndRewrittenThirtyTimesStoresEveryRowAsSentOnTheRegularPath() {
        TableSchema schema = TableSchema.newBuilder("tt_regular").addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("doc", DataType.Json).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        String[] hosts = pool(1_000, "host-");
        String[] msgs = pool(5_000, "msg-");
        String big = longText(1);
        Random rnd = new Random(42);
        Map<Long, Sent> sent = new HashMap<>();
        Table t = Table.from(schema, 128);
        RowAppender a = t.appender();
        int host = a.columnIndex("host");
        int msg = a.columnIndex("msg");
        int doc = a.columnIndex("doc");
        int v = a.columnIndex("v");
        int ts = a.columnIndex("ts");
        long next = 0;
        for (int fill = 0; fill < 30; fill++) {
            t.reset();
            int n = fill % 4 == 3 ? 37 : 500 + rnd.nextInt(1_500);
            int added = 0;
            for (int i = 0; i < n; i++) {
                String h = hosts[rnd.nextInt(hosts.length)];
                int kind = rnd.nextInt(7);
                String m = i == 1 && fill % 10 == 0 ? big : kind == 0 ? null
                        : kind == 1 ? new String(msgs[rnd.nextInt(msgs.length)])
                        : kind == 2 ? "" : msgs[rnd.nextInt(msgs.length)];
                String d = kind == 4 ? null : "{\"host\":\"" + h + "\",\"n\":" + i + "}";
                double val = rnd.nextDouble();
                if (i % 50 == 7) {
                    // A row abandoned midway by a bad value: nothing of it may reach the server.
                    assertThrows(InvalidDataException.class,
                            () -> a.setString(host, "abandoned").setString(msg, "abandoned").setString(doc, "{oops"));
                    assertThrows(InvalidDataException.class,
                            () -> t.addRow("abandoned", "abandoned", "{}", "NaN?", 0L));
                }
                if (i % 3 == 0) {
                    t.addRow(h, m, d, val, next);
                } else {
                    a.setString(host, h).setString(msg, m).setString(doc, d).setDouble(v, val).setLong(ts, next).endRow();
                }
                sent.put(next, new Sent(h, m, d, val));
                next++;
                added++;
            }
            Result<WriteOk, Err> r = db.write(t).join();
            assertTrue(r.isOk(), () -> r.toString());
            assertEquals(added, r.getOk().affectedRows(), "fill " + fill);
        }
        assertStored("tt_regular", sent, true);
    }

    @Test
    void aBulkBatchRefilledFortyTimesThroughTheAppenderStoresEveryRowAsSent() {
        TableSchema schema = TableSchema.newBuilder("tt_bulk").addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        String[] hosts = pool(5_000, "bh-");
        String[] msgs = pool(1_000, "bm-");
        String big = longText(2);
        String big2 = longText(3);
        Random rnd = new Random(7);
        Map<Long, Sent> sent = new HashMap<>();
        List<CompletableFuture<Integer>> acks = new ArrayList<>();
        List<Integer> expectedPerBatch = new ArrayList<>();
        // A heap table filled through its own appender, copied into some batches with addTable.
        Table side = Table.from(schema, 16);
        long next = 0;
        try (BulkStreamWriter w = db.bulkStreamWriter(schema, BULK, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(64);
            RowAppender a = batch.appender();
            for (int b = 0; b < 40; b++) {
                int n = b % 5 == 4 ? 1 + rnd.nextInt(5) : 200 + rnd.nextInt(3_000);
                int added = 0;
                for (int i = 0; i < n; i++) {
                    String h = hosts[rnd.nextInt(hosts.length)];
                    int kind = rnd.nextInt(6);
                    // Every fourth batch carries over 4 MB of text (sent from its own Arrow buffers, the next rows
                    // going to fresh ones); the others are small (copied, the same buffers refilled).
                    String m = b % 4 == 0 && i < 5 ? (i % 2 == 0 ? big : big2) : kind == 0 ? null
                            : kind == 1 ? new String(h) : kind == 2 ? "" : msgs[rnd.nextInt(msgs.length)];
                    double val = rnd.nextDouble();
                    if (i % 97 == 5) {
                        assertThrows(InvalidDataException.class,
                                () -> a.setString(0, "abandoned").setString(1, "abandoned").setString(2, "x"));
                    }
                    if (i % 4 == 0) {
                        batch.addRow(h, m, val, next);
                    } else {
                        a.setString(0, h).setString(1, m).setDouble(2, val).setLong(3, next).endRow();
                    }
                    sent.put(next, new Sent(h, m, null, val));
                    next++;
                    added++;
                }
                if (b % 6 == 1) {
                    side.reset();
                    RowAppender sa = side.appender();
                    for (int i = 0; i < 300; i++) {
                        String h = hosts[i % 17];
                        sa.setString(0, h).setString(1, h).setDouble(2, i).setLong(3, next).endRow();
                        sent.put(next, new Sent(h, h, null, i));
                        next++;
                        added++;
                    }
                    batch.addTable(side);
                }
                // A row still open when the batch is sent is dropped, not carried into the next batch.
                a.setString(0, "left-open").setString(1, "left-open");
                expectedPerBatch.add(added);
                acks.add(w.writeNext());
            }
            for (int b = 0; b < acks.size(); b++) {
                assertEquals(expectedPerBatch.get(b), acks.get(b).join(), "batch " + b);
            }
            w.completed();
        }
        assertStored("tt_bulk", sent, false);
    }

    @ParameterizedTest(name = "{0} path")
    @EnumSource(BatchingWriter.Path.class)
    void theBatchingWritersTypedWriteStoresPooledTextAsSentOverManyBatches(BatchingWriter.Path path) {
        String table = "tt_batching_" + path.name().toLowerCase();
        TableSchema schema = TableSchema.newBuilder(table).addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        String[] hosts = pool(1_000, "wh-");
        String[] msgs = pool(10, "wm-");
        Random rnd = new Random(3);
        Map<Long, Sent> sent = new HashMap<>();
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().maxBatchRows(700).path(path).build();
        try (BatchingWriter w = db.batchingWriter(cfg)) {
            int host = schema.indexOf("host");
            int msg = schema.indexOf("msg");
            int v = schema.indexOf("v");
            int ts = schema.indexOf("ts");
            for (long i = 0; i < 30_000; i++) {
                String h = hosts[rnd.nextInt(hosts.length)];
                int kind = rnd.nextInt(5);
                String m = kind == 0 ? null : kind == 1 ? new String(msgs[rnd.nextInt(msgs.length)]) : kind == 2 ? "é🚀"
                        : msgs[rnd.nextInt(msgs.length)];
                double val = rnd.nextDouble();
                long at = i;
                if (i % 1_000 == 13) {
                    // Refused midway inside the row: the row is dropped, the batch keeps its other rows.
                    assertThrows(InvalidDataException.class,
                            () -> w.write(schema, r -> r.setString(host, "abandoned").setString(msg, "abandoned")
                                    .setString(v, "not a number")));
                    assertThrows(IllegalStateException.class,
                            () -> w.write(schema, r -> {
                                r.setString(host, "abandoned").setString(msg, "abandoned");
                                throw new IllegalStateException("the caller gave up on this row");
                            }));
                }
                if (i % 5 == 0) {
                    acks.add(w.write(schema, h, m, val, at));
                } else {
                    acks.add(w.write(schema, r -> r.setString(host, h).setString(msg, m).setDouble(v, val).setLong(ts, at)));
                }
                sent.put(at, new Sent(h, m, null, val));
            }
            assertTrue(w.flush(Duration.ofSeconds(60)), "every batch acknowledged");
        }
        for (CompletableFuture<Void> f : acks) {
            try {
                f.join();
            } catch (CompletionException e) {
                throw new AssertionError("a batch failed", e);
            }
        }
        assertStored(table, sent, false);
    }

    @Test
    void aBulkRowInterruptedByATimestampSetterOnAMissingColumnSendsNoneOfItsText() {
        TableSchema schema = TableSchema.newBuilder("tt_bulk_leak").addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (BulkStreamWriter w = db.bulkStreamWriter(schema, BULK, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(4);
            RowAppender a = batch.appender();
            a.setString(0, "abandoned-host").setString(1, "abandoned-msg");
            assertThrows(RuntimeException.class, () -> a.setTimestamp(7, java.time.Instant.EPOCH));
            a.setString(0, "h").setDouble(2, 1.0).setLong(3, 1L).endRow();
            assertEquals(1, w.writeNext().join());
            w.completed();
        }
        Map<String, Object> row = server.rows("tt_bulk_leak").get(0);
        assertEquals("h", text(row.get("host")));
        assertEquals(null, row.get("msg"), "the abandoned row's msg was sent in the next row");
    }

    @Test
    void aBulkAddRowCalledWhileAnAppenderRowIsOpenSendsOnlyRowsTheCallerGave() {
        TableSchema schema = TableSchema.newBuilder("tt_bulk_mix").addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (BulkStreamWriter w = db.bulkStreamWriter(schema, BULK, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(4);
            RowAppender a = batch.appender();
            for (long i = 10; i < 13; i++) {
                a.setString(0, "good").setString(1, "good").setDouble(2, i).setLong(3, i).endRow();
            }
            a.setString(0, "appender-host");
            try {
                batch.addRow("addrow-host", "addrow-msg", 1.0, 1L);
            } catch (RuntimeException refused) {
                // refusing is fine
            }
            try {
                a.setString(1, "appender-msg").setDouble(2, 2.0).setLong(3, 2L).endRow();
            } catch (RuntimeException refused) {
                // refusing is fine
            }
            try {
                w.writeNext().join();
            } catch (CompletionException e) {
                throw new AssertionError("the batch holding the caller's good rows failed: " + e.getCause(), e);
            }
            w.completed();
        }
        int good = 0;
        for (Map<String, Object> r : server.rows("tt_bulk_mix")) {
            if ("good".equals(text(r.get("host")))) {
                good++;
                continue;
            }
            String host = text(r.get("host"));
            String msg = text(r.get("msg"));
            long ts = (Long) r.get("ts");
            boolean isAddRow = "addrow-host".equals(host) && "addrow-msg".equals(msg) && ts == 1L;
            boolean isAppender = "appender-host".equals(host) && "appender-msg".equals(msg) && ts == 2L;
            assertTrue(isAddRow || isAppender, "a stored row the caller never gave: " + r);
        }
        assertEquals(3, good, "the three rows ended before the mix-up");
    }

    @Test
    void aBatchingWriteMadeFromInsideAnotherRowOfTheSameTableStoresOnlyRowsTheCallerGave() {
        TableSchema schema = TableSchema.newBuilder("tt_batching_nested").addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build())) {
            try {
                w.write(schema, outer -> {
                    outer.setString(0, "outer-host").setString(1, "outer-msg");
                    w.write(schema, inner -> inner.setString(0, "inner-host").setDouble(2, 1.0).setLong(3, 1L));
                    outer.setDouble(2, 2.0).setLong(3, 2L);
                });
            } catch (RuntimeException refused) {
                // refusing the nested write, or the outer row after it, is fine
            }
            w.flush(Duration.ofSeconds(30));
        }
        if (server.tables().contains("tt_batching_nested")) {
            for (Map<String, Object> r : server.rows("tt_batching_nested")) {
                String host = text(r.get("host"));
                String msg = text(r.get("msg"));
                long ts = (Long) r.get("ts");
                boolean isInner = "inner-host".equals(host) && msg == null && ts == 1L;
                boolean isOuter = "outer-host".equals(host) && "outer-msg".equals(msg) && ts == 2L;
                assertTrue(isInner || isOuter, "a stored row the caller never gave: " + r);
            }
        }
    }

    @Test
    void aResetTableWithAddRowCalledWhileAnAppenderRowIsOpenSendsNoRowOfAnEarlierFill() {
        TableSchema schema = TableSchema.newBuilder("tt_regular_mix").addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(schema, 4);
        t.addRow("stale-host", "stale-msg", 0.0, 100L);
        t.addRow("stale-host", "stale-msg", 0.0, 101L);
        t.reset(); // the earlier fill is dropped unsent
        RowAppender a = t.appender();
        a.setString(0, "appender-host");
        try {
            t.addRow("addrow-host", "addrow-msg", 1.0, 1L);
        } catch (RuntimeException refused) {
            // refusing is fine
        }
        try {
            a.setString(1, "appender-msg").setDouble(2, 2.0).setLong(3, 2L).endRow();
        } catch (RuntimeException refused) {
            // refusing is fine
        }
        if (t.rowCount() > 0) {
            assertTrue(db.write(t).join().isOk());
        }
        List<Map<String, Object>> wrong = new ArrayList<>();
        if (server.tables().contains("tt_regular_mix")) {
            for (Map<String, Object> r : server.rows("tt_regular_mix")) {
                String host = text(r.get("host"));
                String msg = text(r.get("msg"));
                long ts = (Long) r.get("ts");
                boolean isAddRow = "addrow-host".equals(host) && "addrow-msg".equals(msg) && ts == 1L;
                boolean isAppender = "appender-host".equals(host) && "appender-msg".equals(msg) && ts == 2L;
                if (!isAddRow && !isAppender) {
                    wrong.add(r);
                }
            }
        }
        assertEquals(List.of(), wrong, "stored rows the caller never gave");
    }

    @Test
    void bulkTextSetTwiceOrRefusedMidRowIsSentAsTheLastValueTheCallerKept() {
        TableSchema schema = TableSchema.newBuilder("tt_bulk_twice").addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        String longer = "a much longer first value é🚀 ".repeat(200);
        Map<Long, Sent> sent = new HashMap<>();
        try (BulkStreamWriter w = db.bulkStreamWriter(schema, BULK, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(2);
            RowAppender a = batch.appender();
            long ts = 0;
            for (int b = 0; b < 6; b++) {
                int n = 0;
                for (int k = 0; k < 50; k++) {
                    a.setString(0, "h").setString(1, longer).setString(1, "short").setDouble(2, ts).setLong(3, ts).endRow();
                    sent.put(ts, new Sent("h", "short", null, ts));
                    ts++;
                    a.setString(0, "h").setString(1, longer).setNull(1).setDouble(2, ts).setLong(3, ts).endRow();
                    sent.put(ts, new Sent("h", null, null, ts));
                    ts++;
                    a.setString(0, "h").setNull(1).setString(1, "back").setDouble(2, ts).setLong(3, ts).endRow();
                    sent.put(ts, new Sent("h", "back", null, ts));
                    ts++;
                    // Refused for its missing time index after writing long text: the next row starts clean.
                    assertThrows(InvalidDataException.class, () -> a.setString(0, "no-ts").setString(1, longer).endRow());
                    a.setString(0, "h").setDouble(2, ts).setLong(3, ts).endRow();
                    sent.put(ts, new Sent("h", null, null, ts));
                    ts++;
                    n += 4;
                }
                assertEquals(n, w.writeNext().join(), "batch " + b);
            }
            w.completed();
        }
        assertStored("tt_bulk_twice", sent, false);
    }
}
