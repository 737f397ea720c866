package dev.sluice.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.lang.ref.Reference;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * "A row that fails a check ... is not added" and "drops only the row being built": a rejected (or cancelled)
 * row must not keep memory in the table. A long text value is copied into the column's pages before the later
 * columns are checked; a row that then fails must not leave its bytes there until reset(), or a caller that skips
 * bad rows and keeps filling the table would make it grow with every rejected row.
 */
class RejectedRowsDoNotGrowATableTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("logs")
            .addField("message", DataType.String)
            .addField("status", DataType.Int64)
            .addTimestamp("ts", DataType.TimestampMillisecond)
            .build();

    static String line(int i) {
        char[] c = new char[2_000];
        Arrays.fill(c, 'a');
        String n = Integer.toString(i);
        n.getChars(0, n.length(), c, 0);
        return new String(c);
    }

    static long usedAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(20); // lets the collector finish between readings of the heap; the lowest reading counts
            best = Math.min(best, rt.totalMemory() - rt.freeMemory());
        }
        return best;
    }

    @Test
    void rowsRejectedByAddRowLeaveNoMemoryInTheTable() throws Exception {
        Table table = Table.from(SCHEMA, 16);
        table.addRow(line(-1), 200L, 1L);
        long before = usedAfterGc();
        int rejected = 0;
        for (int i = 0; i < 40_000; i++) {
            try {
                table.addRow(line(i), "not a number", 2L + i); // the status column refuses a String
            } catch (InvalidDataException e) {
                rejected++;
            }
        }
        long grown = usedAfterGc() - before;
        assertEquals(40_000, rejected);
        assertEquals(1, table.rowCount());
        assertEquals(line(-1), table.column(0).getString(0));
        Reference.reachabilityFence(table);
        // 40,000 rejected 2,000-byte lines: the table should hold what its one row needs, not 80 MB.
        assertTrue(grown < 16L << 20, "a table of 1 row grew by " + (grown >> 20) + " MiB after 40,000 rejected rows");
    }

    @Test
    void rowsCancelledInTheAppenderLeaveNoMemoryInTheTable() throws Exception {
        Table table = Table.from(SCHEMA, 16);
        RowAppender a = table.appender();
        a.setString(0, line(-1)).setLong(1, 200L).setLong(2, 1L).endRow();
        long before = usedAfterGc();
        for (int i = 0; i < 40_000; i++) {
            a.setString(0, line(i)).setLong(1, 200L);
            a.cancelRow();
        }
        // and rows whose later value is refused: the appender drops the row
        for (int i = 0; i < 10_000; i++) {
            a.setString(0, line(i));
            int at = i;
            assertThrows(InvalidDataException.class, () -> a.setString(1, "x" + at));
        }
        long grown = usedAfterGc() - before;
        assertEquals(1, table.rowCount());
        Reference.reachabilityFence(table);
        assertTrue(grown < 16L << 20, "a table of 1 row grew by " + (grown >> 20) + " MiB after 50,000 dropped rows");
    }
}
