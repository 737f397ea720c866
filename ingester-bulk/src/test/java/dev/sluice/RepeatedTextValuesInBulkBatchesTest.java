package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A text value repeated from row to row (a series' tags) is stored as written whatever comes between the
 * repetitions: another value, nulls, raw UTF-8 bytes, a rejected row, a sent batch; and a reused, mutated
 * {@code CharSequence} is stored as it read when each row was added.
 */
@SharesJvm
class RepeatedTextValuesInBulkBatchesTest extends BulkTestkitTest {
    private static final BulkWrite.Config CONFIG =
            BulkWrite.Config.newBuilder().requestTimeout(Duration.ofMillis(10_000)).build();
    private static final TableSchema SCHEMA = TableSchema.newBuilder("repeated_text").addTag("host", DataType.String)
            .addField("note", DataType.String).addField("n", DataType.Int32)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    /** The host and note stored per row, in ts order. */
    private static List<List<Object>> stored() {
        List<Map<String, Object>> rows = new ArrayList<>(server.rows("repeated_text"));
        rows.sort((a, b) -> Long.compare((Long) a.get("ts"), (Long) b.get("ts")));
        List<List<Object>> out = new ArrayList<>();
        for (Map<String, Object> r : rows) {
            out.add(Arrays.asList(r.get("host"), r.get("note")));
        }
        return out;
    }

    @Test
    void theSameObjectRepeatedAroundOtherValuesNullsAndSentBatchesIsStoredEachTime() {
        String a = "host-0001";
        String b = "host-0002";
        String accented = "hôte-é";
        String symbols = "✓ \uD83D\uDE00";
        String longer = "l".repeat(64);
        String[] hosts = {a, a, a, b, b, a, null, a, null, null, a, accented, accented, a, accented, symbols, symbols,
            longer, longer, a, longer, new String(a.toCharArray()), a};
        List<List<Object>> expected = new ArrayList<>();
        long ts = 0;
        try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(4);
            for (int round = 0; round < 3; round++) {
                for (String host : hosts) {
                    String note = host == null ? a : host; // the second column repeats what the first one had
                    batch.addRow(host, note, 1, ts++);
                    expected.add(Arrays.asList(host, note));
                }
                // The batch ends on the value the next batch starts with.
                assertEquals(hosts.length, w.writeNext().join());
            }
            w.completed();
        }
        assertEquals(expected, stored());
    }

    @Test
    void aReusedCharSequenceChangedBetweenRowsIsStoredAsItReadForEachRow() {
        StringBuilder host = new StringBuilder();
        List<List<Object>> expected = new ArrayList<>();
        String[] contents = {"h-1", "h-1", "h-2", "h-é", "h-é", "h-1", "", "h-1"};
        try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, CONFIG, Context.newBuilder().build())) {
            RowAppender row = w.tableBufferRoot(4).appender();
            long ts = 0;
            for (String c : contents) {
                host.setLength(0);
                host.append(c);
                row.setString(0, host).setString(1, host).setLong(2, 7).setLong(3, ts++).endRow();
                expected.add(Arrays.asList(c, c));
            }
            assertEquals(contents.length, w.writeNext().join());
            w.completed();
        }
        assertEquals(expected, stored());
    }

    @Test
    void aValueRepeatedAfterRawBytesOrARejectedRowInBetweenIsStoredAsWritten() {
        String a = "edge-a";
        String z = "edge-z";
        byte[] zBytes = z.getBytes(StandardCharsets.UTF_8);
        List<List<Object>> expected = new ArrayList<>();
        try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(4);
            RowAppender row = batch.appender();
            row.setString(0, a).setString(1, a).setLong(2, 1).setLong(3, 0).endRow();
            row.setUtf8(0, zBytes, 0, zBytes.length).setUtf8(1, zBytes, 0, zBytes.length).setLong(2, 1).setLong(3, 1)
                    .endRow();
            row.setString(0, a).setString(1, a).setLong(2, 1).setLong(3, 2).endRow();
            // Rejected after its text was written: the rows after it are stored as written.
            assertThrows(InvalidDataException.class, () -> batch.addRow(z, z, 5_000_000_000L, 3L));
            batch.addRow(a, a, 1, 3L);
            assertThrows(InvalidDataException.class, () -> batch.addRow(a, a, 5_000_000_000L, 4L));
            batch.addRow(z, a, 1, 4L);
            expected.add(Arrays.asList(a, a));
            expected.add(Arrays.asList(z, z));
            expected.add(Arrays.asList(a, a));
            expected.add(Arrays.asList(a, a));
            expected.add(Arrays.asList(z, a));
            assertEquals(5, w.writeNext().join());
            w.completed();
        }
        assertEquals(expected, stored());
    }
}
