package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table keeps long ASCII text as the caller's {@code String} instead of encoding an array per value (log lines
 * are long and never repeat, so the text cache cannot help them), and every way of reading a text row gives the
 * value's UTF-8 bytes whichever way it was kept.
 */
class LongAsciiTextTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("logs")
            .addTag("host", DataType.String)
            .addField("message", DataType.String)
            .addTimestamp("ts", DataType.TimestampMillisecond)
            .build();

    @Test
    void freshLongAsciiMessagesAreKeptWithoutAnArrayPerRow() {
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
            assertSame(messages[r], table.column(1).getString(r), "row " + r + " keeps the caller's instance");
        }
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
