package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import org.junit.jupiter.api.Test;

/** String columns take a String as it is, any other CharSequence as its text, and nothing else. */
class StringColumnCoercionTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("t").addTag("host", DataType.String)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void stringsAndOtherCharSequencesAreStoredAsTheirText() {
        Table t = Table.from(SCHEMA).addRow("web-1", 1L).addRow(new StringBuilder("web-").append(2), 2L).complete();
        assertEquals("web-1", t.column(0).getString(0));
        assertEquals("web-2", t.column(0).getString(1));
    }

    @Test
    void aNumberInAStringColumnIsRejectedNamingTableColumnAndRow() {
        Table t = Table.from(SCHEMA).addRow("web-1", 1L);
        InvalidDataException e = assertThrows(InvalidDataException.class, () -> t.addRow(42, 2L));
        assertEquals("t", e.table());
        assertEquals("host", e.column());
        assertEquals(1, e.row());
        assertTrue(e.getMessage().contains("host"), e.getMessage());
    }
}
