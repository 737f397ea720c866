package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table packs long text into a few large arrays instead of an array (or the caller's {@code String}) per value:
 * log lines are long and never repeat, so the text cache cannot help them, and an object per value kept until the
 * request is answered is copied by the collector again and again. Every way of reading a text row gives the value's
 * UTF-8 bytes whichever way it was kept.
 */
class LongAsciiTextTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("logs")
            .addTag("host", DataType.String)
            .addField("message", DataType.String)
            .addTimestamp("ts", DataType.TimestampMillisecond)
            .build();

    @Test
    void longAsciiMessagesArePackedWithoutAnArrayPerRow() {
        int rows = 4_096;
        String[] messages = new String[rows];
        for (int i = 0; i < rows; i++) {
            messages[i] = LongTextEdgeCases.ascii(2_000, i); // one instance per row, as a service's log lines are
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Table table = Table.from(SCHEMA, rows);
        for (int round = 0; round < 3; round++) { // the last round is measured: the table at its size, the code warm
            table.reset();
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int r = 0; r < rows; r++) {
                table.addRow("h" + (r & 7), messages[r], 1_700_000_000_000L + r);
            }
            long perRow = (threads.getCurrentThreadAllocatedBytes() - before) / rows;
            if (round == 2) {
                // An encoded array per message would be 2,016 bytes a row or more.
                assertTrue(perRow < 256, perRow + " bytes allocated per row");
            }
        }
        for (int r = 0; r < rows; r++) {
            assertEquals(messages[r], table.column(1).getString(r), "row " + r);
        }
    }

    @Test
    void aTableDoesNotKeepTheCallersLongStringsAlive() throws Exception {
        // A table that kept the caller's String would keep each fresh log line alive until its request was
        // encoded, and the collector would copy them as it copies arrays.
        Table table = Table.from(SCHEMA, 1_000);
        List<WeakReference<String>> refs = new ArrayList<>();
        for (int r = 0; r < 1_000; r++) {
            String line = LongTextEdgeCases.ascii(2_000, r) + (r % 2 == 0 ? "" : "é"); // ASCII and not
            refs.add(new WeakReference<>(line));
            table.addRow("h", line, 1_700_000_000_000L + r);
        }
        for (int i = 0; i < 50 && refs.stream().anyMatch(w -> w.get() != null); i++) {
            System.gc();
            Thread.sleep(10); // a poll of the references after a collection, bounded by the loop's count
        }
        long alive = refs.stream().filter(w -> w.get() != null).count();
        assertEquals(0, alive, alive + " of 1,000 long strings still reachable while the table is");
        assertEquals(LongTextEdgeCases.ascii(2_000, 999) + "é", table.column(1).getString(999));
        Reference.reachabilityFence(table);
    }

    @Test
    void everyReadOfATextRowGivesItsUtf8BytesWhicheverWayItWasKept() {
        List<String> values = LongTextEdgeCases.values();
        ArrayColumn column = new ArrayColumn(DataType.String, 4);
        for (int r = 0; r < values.size(); r++) {
            column.ensureCapacity(r);
            column.setText(r, values.get(r));
        }
        for (int r = 0; r < values.size(); r++) {
            String v = values.get(r);
            byte[] expected = v.getBytes(StandardCharsets.UTF_8);
            String what = "row " + r + " (" + v.length() + " chars)";
            assertArrayEquals(expected, column.getBytes(r), what);
            assertEquals(expected.length, column.byteLength(r), what);
            byte[] copied = new byte[expected.length + 6];
            Arrays.fill(copied, (byte) 0x55);
            column.copyBytes(r, copied, 3);
            assertArrayEquals(expected, Arrays.copyOfRange(copied, 3, 3 + expected.length), what);
            assertEquals(0x55, copied[2], what + ": nothing written before");
            assertEquals(0x55, copied[3 + expected.length], what + ": nothing written after");
            assertEquals(new String(expected, StandardCharsets.UTF_8), column.getString(r), what);
        }
    }

    @Test
    void theAsciiCheckAcceptsOnlyTextWhoseCharactersAreItsUtf8Bytes() {
        AsciiText check = new AsciiText();
        for (String v : LongTextEdgeCases.values()) {
            byte[] utf8 = v.getBytes(StandardCharsets.UTF_8);
            boolean ascii = v.chars().allMatch(c -> c < 0x80);
            boolean expected = ascii && v.length() <= AsciiText.MAX_CHARS;
            assertEquals(expected, check.check(v), v.length() + " chars, ASCII " + ascii);
            if (expected) {
                assertArrayEquals(utf8, Arrays.copyOf(check.bytes(), v.length()), v.length() + " chars");
            }
        }
    }

    @Test
    void copyingARowToAnotherSinkPassesTheTextOnUnchanged() {
        List<String> values = LongTextEdgeCases.values();
        ArrayColumn from = new ArrayColumn(DataType.String, values.size());
        ArrayColumn to = new ArrayColumn(DataType.String, values.size());
        for (int r = 0; r < values.size(); r++) {
            from.setText(r, values.get(r));
        }
        for (int r = 0; r < values.size(); r++) {
            from.copyText(r, to, values.size() - 1 - r);
        }
        for (int r = 0; r < values.size(); r++) {
            assertArrayEquals(values.get(r).getBytes(StandardCharsets.UTF_8), to.getBytes(values.size() - 1 - r));
        }
    }
}
