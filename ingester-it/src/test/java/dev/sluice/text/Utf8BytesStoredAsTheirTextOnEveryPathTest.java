package dev.sluice.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.SharesJvm;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Text set with {@link RowAppender#setUtf8} (slices at odd offsets, every size up to megabytes, many rows, mixed with
 * setString, refused values in mid-row) is stored as the caller's string through a bulk batch's appender and through
 * a Table written by the regular path; a Json column takes the bytes as JSON text.
 */
@SharesJvm
class Utf8BytesStoredAsTheirTextOnEveryPathTest {
    static final byte[] BAD = {'x', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80};

    static String text(Random r, int n) {
        StringBuilder s = new StringBuilder(n);
        while (s.length() < n) {
            int k = r.nextInt(10);
            if (k < 6) {
                s.append((char) (0x20 + r.nextInt(0x5f)));
            } else if (k < 8) {
                s.append((char) (0xA0 + r.nextInt(0x700)));
            } else if (k < 9) {
                char c = (char) (0x800 + r.nextInt(0xF7FF));
                s.append(Character.isSurrogate(c) ? '_' : c);
            } else {
                s.appendCodePoint(0x10000 + r.nextInt(0x100000));
            }
        }
        return s.toString();
    }

    static List<String> values(Random r, int n) {
        List<String> v = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int size = i == 7 ? 3 << 20 : i % 500 == 3 ? 100_000 + r.nextInt(300_000)
                    : i % 9 == 0 ? 64 + r.nextInt(4000) : r.nextInt(64);
            v.add(i % 31 == 0 ? null : i % 37 == 0 ? "" : text(r, size));
        }
        return v;
    }

    static long millis(Object ts) {
        return ReusedTableRefilledWithOtherSizesIsStoredAsSentTest.millis(ts);
    }

    /** Fills rows through an appender: text from bytes for most rows, from strings for some, and a refused row now and then. */
    static void fill(RowAppender a, List<String> vals, long ts0, Random r, boolean json) {
        for (int i = 0; i < vals.size(); i++) {
            String s = vals.get(i);
            if (i % 101 == 50) { // a row refused after other columns were set
                byte[] h = "dropped".getBytes(StandardCharsets.UTF_8);
                a.setUtf8(0, h, 0, h.length).setLong(2, -1).setLong(3, ts0 + 10_000_000 + i);
                assertThrows(InvalidDataException.class, () -> a.setUtf8(1, BAD, 0, BAD.length));
            }
            String tag = "t" + (i % 5) + "\u00E9";
            if (s == null || i % 4 == 1) {
                a.setString(1, s).setString(0, tag);
            } else {
                byte[] enc = s.getBytes(StandardCharsets.UTF_8);
                int off = r.nextInt(9);
                byte[] arr = new byte[off + enc.length + r.nextInt(9)];
                for (int k = 0; k < arr.length; k++) {
                    arr[k] = (byte) 0x80; // continuation bytes around the slice
                }
                System.arraycopy(enc, 0, arr, off, enc.length);
                if (i % 6 == 0) {
                    byte[] first = "overwritten".getBytes(StandardCharsets.UTF_8);
                    a.setUtf8(1, first, 0, first.length);
                }
                a.setUtf8(1, arr, off, enc.length);
                byte[] t = tag.getBytes(StandardCharsets.UTF_8);
                a.setUtf8(0, t, 0, t.length);
            }
            if (json) {
                byte[] j = ("{\"i\":" + i + ",\"s\":\"\u00E9\u20AC\uD83D\uDE00\"}").getBytes(StandardCharsets.UTF_8);
                a.setUtf8(4, j, 0, j.length);
            }
            a.setLong(2, i).setLong(3, ts0 + i).endRow();
        }
    }

    static void check(GreptimeTestServer server, String table, List<String> vals, long ts0, boolean json) {
        List<Map<String, Object>> rows = server.rows(table);
        Map<Long, Map<String, Object>> byTs = new HashMap<>();
        rows.forEach(m -> {
            long t = millis(m.get("ts"));
            if (t >= ts0 && t < ts0 + 1_000_000) {
                byTs.put(t, m);
            }
        });
        assertEquals(vals.size(), byTs.size(), table + " rows from " + ts0);
        int bad = 0;
        StringBuilder first = new StringBuilder();
        for (int i = 0; i < vals.size(); i++) {
            Map<String, Object> m = byTs.get(ts0 + i);
            assertTrue(m != null, table + " row " + i + " missing");
            Object got = m.get("m");
            if (!Objects.equals(vals.get(i), got) || !("t" + (i % 5) + "\u00E9").equals(m.get("h"))) {
                if (bad++ < 3) {
                    String v = vals.get(i);
                    first.append("\n row ").append(i).append(": expected ")
                            .append(v == null ? "null" : v.length() > 40 ? v.length() + " chars" : "'" + v + "'")
                            .append(", got ").append(got == null ? "null" : ((String) got).length() > 40
                                    ? ((String) got).length() + " chars" : "'" + got + "'")
                            .append(" tag ").append(m.get("h"));
                }
            }
            if (json) {
                String j = String.valueOf(m.get("j"));
                assertTrue(j.contains("\u00E9\u20AC\uD83D\uDE00") && j.contains(String.valueOf(i)), table + " json " + j);
            }
        }
        assertEquals(0, bad, table + ": " + bad + " values differ" + first);
    }

    @Test
    void bytesSetThroughABulkBatchAndThroughARegularTableAreStoredAsTheirText() throws Exception {
        TableSchema bulkSchema = TableSchema.newBuilder("utf8_bulk").addTag("h", DataType.String)
                .addField("m", DataType.String).addField("n", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        TableSchema regularSchema = TableSchema.newBuilder("utf8_regular").addTag("h", DataType.String)
                .addField("m", DataType.String).addField("n", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).addField("j", DataType.Json).build();
        Random r = new Random(99);
        List<String> batch1 = values(r, 5_000);
        List<String> batch2 = values(r, 20_000);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxMessageSize(64 << 20).build());
            try {
                BulkWrite.Config bulk = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(60)).build();
                try (BulkStreamWriter bw = db.bulkStreamWriter(bulkSchema, bulk, Context.newBuilder().build())) {
                    TableBufferRoot root = bw.tableBufferRoot(16); // small, so the Arrow buffers grow
                    fill(root.appender(), batch1, 0, r, false);
                    assertEquals(batch1.size(), root.rowCount());
                    assertEquals(batch1.size(), bw.writeNext().get(60, TimeUnit.SECONDS));
                    root = bw.tableBufferRoot(64);
                    fill(root.appender(), batch2, 1_000_000, r, false);
                    assertEquals(batch2.size(), root.rowCount());
                    assertEquals(batch2.size(), bw.writeNext().get(60, TimeUnit.SECONDS));
                }
                check(server, "utf8_bulk", batch1, 0, false);
                check(server, "utf8_bulk", batch2, 1_000_000, false);
            } finally {
                db.shutdownGracefully(Duration.ofSeconds(10));
            }
            assertEquals(batch1.size() + batch2.size(), server.rows("utf8_bulk").size(), "no dropped row stored");

            GreptimeDB db2 = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxMessageSize(64 << 20).build());
            try {
                Table t = Table.from(regularSchema);
                fill(t.appender(), batch1, 0, r, true);
                t.complete();
                var res = db2.write(t).get(60, TimeUnit.SECONDS);
                assertTrue(res.isOk(), String.valueOf(res));
                check(server, "utf8_regular", batch1, 0, true);
            } finally {
                db2.shutdownGracefully(Duration.ofSeconds(10));
            }
        }
    }

    @Test
    void bothBulkBatchesStoreEveryValue() throws Exception {
        TableSchema schema = TableSchema.newBuilder("utf8_bulk_two").addTag("h", DataType.String)
                .addField("m", DataType.String).addField("n", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Random r = new Random(5);
        List<String> a = values(r, 3_000);
        List<String> b = values(r, 9_000);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxMessageSize(64 << 20).build());
            try (BulkStreamWriter bw = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder()
                    .requestTimeout(Duration.ofSeconds(60)).build(), Context.newBuilder().build())) {
                TableBufferRoot root = bw.tableBufferRoot(8);
                fill(root.appender(), a, 0, r, false);
                bw.writeNext().get(60, TimeUnit.SECONDS);
                root = bw.tableBufferRoot(8);
                fill(root.appender(), b, 0 + 5_000_000, r, false);
                bw.writeNext().get(60, TimeUnit.SECONDS);
            } finally {
                db.shutdownGracefully(Duration.ofSeconds(10));
            }
            List<String> both = new ArrayList<>(a);
            // rows of the second batch were timed from 5_000_000; check each batch on its own timestamps
            Map<Long, Map<String, Object>> byTs = new HashMap<>();
            server.rows("utf8_bulk_two").forEach(m -> byTs.put(millis(m.get("ts")), m));
            assertEquals(a.size() + b.size(), byTs.size());
            for (int i = 0; i < b.size(); i++) {
                assertEquals(b.get(i), byTs.get(5_000_000L + i).get("m"), "second batch row " + i);
            }
            for (int i = 0; i < both.size(); i++) {
                assertEquals(both.get(i), byTs.get((long) i).get("m"), "first batch row " + i);
            }
        }
    }
}
