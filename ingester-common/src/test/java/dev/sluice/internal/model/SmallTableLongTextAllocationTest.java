package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A Table keeps long ASCII text as the caller's String "with no array per value". For a table per write with few
 * rows (a common pattern: one Table per request), encoding that text needs scratch space (a CharsetEncoder and a
 * char[] plus a byte[] sized to the next power of two of the value); held per table and text column, that scratch
 * would cost more than the one UTF-8 array per value it saves. This measures bytes allocated per row by filling
 * fresh tables of a few rows with 2,000-character ASCII messages (pooled strings: no caller allocation counted).
 */
class SmallTableLongTextAllocationTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("logs")
            .addTag("host", DataType.String)
            .addField("message", DataType.String)
            .addField("stack", DataType.String)
            .addTimestamp("ts", DataType.TimestampMillisecond)
            .build();

    long perRow(int rowsPerTable) {
        String[] messages = new String[64];
        for (int i = 0; i < messages.length; i++) {
            messages[i] = LongTextEdgeCases.ascii(2_000, i);
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long measured = 0;
        int tables = 20_000 / rowsPerTable;
        for (int round = 0; round < 3; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            int r = 0;
            for (int t = 0; t < tables; t++) {
                Table table = Table.from(SCHEMA, rowsPerTable);
                for (int i = 0; i < rowsPerTable; i++, r++) {
                    table.addRow("h", messages[r & 63], messages[(r + 7) & 63], 1_700_000_000_000L + r);
                }
                table.complete();
            }
            measured = (threads.getCurrentThreadAllocatedBytes() - before) / r;
        }
        return measured;
    }

    @Test
    void oneRowTablesOfLongAsciiTextAllocateNoEncoderScratchPerTable() {
        long perRow = perRow(1);
        System.out.println("1-row tables, 2 long text columns: " + perRow + " B/row");
        // One UTF-8 array per value comes to about 5,200 B/row (two 2,000-byte arrays plus the table's objects);
        // scratch per table and text column (char[2048] + byte[2048] + encoder) would come to about 13,700 B/row.
        // The bound lies between the two, far from either, so the JIT's state cannot move a figure across it.
        assertTrue(perRow < 9_000, perRow + " bytes allocated per row (about 13,700 with scratch per table and column)");
    }
}
