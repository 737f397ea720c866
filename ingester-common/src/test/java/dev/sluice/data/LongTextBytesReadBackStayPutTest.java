package dev.sluice.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * ColumnVector.getBytes says a Table "packs long text, 64 characters or more, into larger arrays and copies a
 * value out for each call". It does not when the value happens to fill its page exactly: the first page of a
 * column is the first long value's size (256 bytes or more), and getBytes then hands out the page itself. After
 * reset() the page is reused, so bytes the caller read earlier (and never modified) change under it.
 */
class LongTextBytesReadBackStayPutTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("logs")
            .addField("message", DataType.String)
            .addTimestamp("ts", DataType.TimestampMillisecond)
            .build();

    static String filled(char c, int n) {
        char[] a = new char[n];
        Arrays.fill(a, c);
        return new String(a);
    }

    @Test
    void bytesReadFromALongValueDoNotChangeWhenTheTableIsRefilled() {
        Table table = Table.from(SCHEMA);
        String first = filled('a', 300);
        table.addRow(first, 1L).complete();
        byte[] read = table.column(0).getBytes(0);
        byte[] expected = first.getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(expected, read);

        table.reset();
        table.addRow(filled('b', 300), 2L);
        assertArrayEquals(expected, read, "the bytes read before reset() were overwritten by the next fill");
    }

    @Test
    void getBytesOfLongTextIsACopyAsDocumented() {
        Table table = Table.from(SCHEMA);
        table.addRow(filled('a', 300), 1L);
        // "copies a value out for each call"
        assertNotSame(table.column(0).getBytes(0), table.column(0).getBytes(0));
    }
}
