package dev.sluice.text;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
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
import dev.sluice.write.WriteOk;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One Table reused with reset() over rounds of very different text sizes (empty, null, 64-300 chars, 2 KB lines,
 * values over a page and over 1 MiB, non-ASCII, lone surrogates, long JSON), with rows rejected half-way and
 * appender rows cancelled in between; after each round's writes have completed the same table is written by the
 * regular path, a stream writer and copied into a bulk batch. Every stored value must be the caller's text.
 */
@SharesJvm
class ReusedTableRefilledWithOtherSizesIsStoredAsSentTest {
    static final String[] ODD = {"é", "\uD83D\uDE00", "\uD800", "\uDC00x", "日本", "\u0000"};

    static String text(Random r, int n, boolean ascii) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            if (!ascii && r.nextInt(50) == 0) {
                b.append(ODD[r.nextInt(ODD.length)]);
            } else {
                b.append((char) (0x20 + r.nextInt(0x5f)));
            }
        }
        return b.toString();
    }

    static List<String> round(Random r, int k) {
        List<String> v = new ArrayList<>();
        switch (k % 4) {
            case 0:
                for (int i = 0; i < 300; i++) {
                    v.add(i % 7 == 0 ? null : i % 11 == 0 ? "" : text(r, 2_000 + r.nextInt(100), i % 3 != 0));
                }
                break;
            case 1:
                v.add(text(r, (1 << 20) + 4_321, true));
                v.add(text(r, 700_000, false));
                v.add(null);
                v.add(text(r, 70_000, false) + "\uD800");
                v.add("");
                v.add(text(r, 3 << 20, true));
                break;
            case 2:
                for (int i = 0; i < 1_000; i++) {
                    v.add(i % 13 == 0 ? null : text(r, 64 + r.nextInt(240), i % 2 == 0));
                }
                break;
            default: // a dozen values of 100-600 KB: the sizes are the point, not their number
                for (int i = 0; i < 12; i++) {
                    v.add(text(r, 100_000 + r.nextInt(500_000), i % 4 != 0));
                }
        }
        return v;
    }

    static String json(String v) {
        StringBuilder b = new StringBuilder("{\"m\":\"");
        for (char c : v.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append("\"}").toString();
    }

    static String wire(String s) {
        return s == null ? null : new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    }

    static long millis(Object ts) {
        if (ts instanceof java.time.Instant in) {
            return in.toEpochMilli();
        }
        if (ts instanceof java.sql.Timestamp t) {
            return t.getTime();
        }
        return ((Number) ts).longValue();
    }

    @Test
    void aReusedTableRefilledWithOtherSizesIsStoredAsSentOnEveryPath() throws Exception {
        TableSchema regularSchema = TableSchema.newBuilder("reused_regular").addTag("h", DataType.String)
                .addField("m", DataType.String).addField("j", DataType.Json).addField("n", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        TableSchema streamSchema = TableSchema.newBuilder("reused_stream").addTag("h", DataType.String)
                .addField("m", DataType.String).addField("j", DataType.Json).addField("n", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        TableSchema bulkSchema = TableSchema.newBuilder("reused_bulk").addTag("h", DataType.String)
                .addField("m", DataType.String).addField("n", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Map<Long, String> expected = new HashMap<>();
        Random r = new Random(2525);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxMessageSize(8 << 20).build());
            BulkWrite.Config bulk = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(60)).build();
            Table regular = Table.from(regularSchema);
            Table stream = Table.from(streamSchema);
            Table bulkSource = Table.from(bulkSchema);
            long ts = 1_000;
            try (BulkStreamWriter bw = db.bulkStreamWriter(bulkSchema, bulk, Context.newBuilder().build())) {
                for (int k = 0; k < 8; k++) {
                    regular.reset();
                    stream.reset();
                    bulkSource.reset();
                    List<String> vals = round(r, k);
                    int added = 0;
                    for (int i = 0; i < vals.size(); i++) {
                        String v = vals.get(i);
                        String h = v == null ? "n" : v.length() > 40 ? v.substring(0, 40) : v;
                        String j = v == null ? null : json(v);
                        // a row rejected after its long text was stored
                        String bad = text(r, 3_000, i % 2 == 0);
                        for (Table t : new Table[] {regular, stream}) {
                            try {
                                t.addRow(h, bad, json(bad), "nan", ts + 1_000_000);
                                throw new AssertionError("accepted");
                            } catch (InvalidDataException expectedFailure) {
                                // fine
                            }
                            RowAppender a = t.appender();
                            a.setString(1, bad).setString(2, json(bad)).cancelRow();
                            if (i % 2 == 0) {
                                t.addRow(h, v, j, (long) i, ts);
                            } else {
                                a.setString(1, bad).setString(0, h).setString(1, v).setString(2, j)
                                        .setLong(3, i).setLong(4, ts).endRow();
                            }
                        }
                        try {
                            bulkSource.addRow(h, bad, "nan", ts + 1_000_000);
                            throw new AssertionError("accepted");
                        } catch (InvalidDataException expectedFailure) {
                            // fine
                        }
                        bulkSource.addRow(h, v, (long) i, ts);
                        expected.put(ts, v);
                        ts++;
                        added++;
                    }
                    regular.complete();
                    stream.complete();
                    bulkSource.complete();
                    var res = db.write(regular).get(60, TimeUnit.SECONDS);
                    assertTrue(res.isOk(), "round " + k + ": " + res);
                    assertEquals(added, res.getOk().affectedRows());
                    StreamWriter<Table, WriteOk> w = db.streamWriter();
                    w.write(stream);
                    w.completed().get(60, TimeUnit.SECONDS);
                    w.close();
                    TableBufferRoot root = bw.tableBufferRoot(64);
                    root.addTable(bulkSource);
                    assertEquals(added, bw.writeNext().get(60, TimeUnit.SECONDS));
                }
            }
            for (String name : new String[] {"reused_regular", "reused_stream", "reused_bulk"}) {
                List<Map<String, Object>> rows = server.rows(name);
                assertEquals(expected.size(), rows.size(), name + " rows");
                int bad = 0;
                StringBuilder first = new StringBuilder();
                for (Map<String, Object> row : rows) {
                    long t = millis(row.get("ts"));
                    String v = expected.get(t);
                    Object got = row.get("m");
                    if (!java.util.Objects.equals(wire(v), got)) {
                        if (bad++ == 0) {
                            first.append(name).append(" ts ").append(t).append(": expected ")
                                    .append(v == null ? "null" : v.length() + " chars").append(", got ")
                                    .append(got == null ? "null" : ((String) got).length() + " chars");
                        }
                    }
                    if (!name.equals("reused_bulk") && v != null) {
                        Object jv = row.get("j");
                        assertTrue(jv != null, name + " json null at " + t);
                    }
                }
                assertEquals(0, bad, bad + " values differ; first: " + first);
            }
            db.shutdownGracefully(Duration.ofSeconds(10));
        }
    }
}
