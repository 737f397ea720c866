package dev.sluice.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link RowAppender#setUtf8} stores what {@code setString} stores for the same text, and refuses malformed bytes. */
class StringColumnsFromUtf8BytesTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("logs")
            .addTag("host", DataType.String).addField("msg", DataType.String).addField("j", DataType.Json)
            .addField("n", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void textFromBytesEqualsTheSameTextFromAString() {
        String[] texts = {"", "plain ascii", "héllo wörld", "€ and 😀", "x".repeat(5000) + "é", "é".repeat(3000)};
        Table fromBytes = Table.from(SCHEMA);
        Table fromStrings = Table.from(SCHEMA);
        RowAppender a = fromBytes.appender();
        RowAppender b = fromStrings.appender();
        long ts = 0;
        for (String t : texts) {
            byte[] inside = utf8("<<" + t + ">>"); // a slice of a larger array
            a.setUtf8(0, utf8(t), 0, utf8(t).length).setUtf8(1, inside, 2, inside.length - 4).setLong(4, ts).endRow();
            b.setString(0, t).setString(1, t).setLong(4, ts++).endRow();
        }
        RowAppenderTest.assertSameColumns(fromStrings, fromBytes);
        for (int r = 0; r < texts.length; r++) {
            assertEquals(texts[r], fromBytes.column(1).getString(r));
        }
    }

    @Test
    void malformedBytesAreRefusedNamingColumnRowAndByteAndTheRowIsDropped() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        a.setUtf8(0, utf8("h"), 0, 1).setLong(4, 1).endRow();
        byte[] bad = {'o', 'k', (byte) 0xC3, '(', 'x'};
        a.setString(0, "h2");
        InvalidDataException e = assertThrows(InvalidDataException.class, () -> a.setUtf8(1, bad, 0, bad.length));
        assertEquals("msg", e.column());
        assertTrue(e.getMessage().contains("logs") && e.getMessage().contains("byte 2"), e.getMessage());
        a.setUtf8(1, bad, 0, 2).setLong(4, 2).endRow();
        assertEquals(2, t.rowCount(), "the refused row is dropped, the rows around it are kept");
        assertEquals("h", t.column(0).getString(0));
        assertTrue(t.column(0).isNull(1), "the dropped row's tag did not leak into the next row");
        assertEquals("ok", t.column(1).getString(1));
    }

    @Test
    void encodedSurrogatesAndOverlongFormsAreRefused() {
        RowAppender a = Table.from(SCHEMA).appender();
        byte[][] bad = {{(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xC0, (byte) 0xAF},
                {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xE2, (byte) 0x82}};
        for (byte[] b : bad) {
            assertThrows(InvalidDataException.class, () -> a.setUtf8(1, b, 0, b.length));
        }
    }

    @Test
    void aJsonColumnTakesJsonTextAndRefusesOtherText() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        byte[] json = utf8("{\"k\": \"é\"}");
        a.setUtf8(2, json, 0, json.length).setLong(4, 1).endRow();
        assertEquals(1, t.rowCount());
        byte[] notJson = utf8("{k");
        assertThrows(InvalidDataException.class, () -> a.setUtf8(2, notJson, 0, notJson.length));
    }

    @Test
    void otherColumnTypesNullAndBoundsAreHandledLikeTheOtherSetters() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        byte[] one = utf8("1");
        InvalidDataException e = assertThrows(InvalidDataException.class, () -> a.setUtf8(3, one, 0, 1));
        assertEquals("n", e.column());
        a.setUtf8(1, null, 0, 0).setLong(4, 1).endRow();
        assertTrue(t.column(1).isNull(0));
        assertThrows(IndexOutOfBoundsException.class, () -> a.setUtf8(1, one, 1, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> a.setUtf8(1, one, -1, 1));
        a.setLong(4, 2).endRow();
        assertEquals(2, t.rowCount());
        assertTrue(t.column(1).isNull(1), "a value out of bounds left nothing behind");
    }
}
