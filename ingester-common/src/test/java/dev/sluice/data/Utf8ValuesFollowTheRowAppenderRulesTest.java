package dev.sluice.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link RowAppender#setUtf8} keeps the rules every setter keeps: a refused value drops the row being built and only
 * it, the next setter starts a new row, the last value set wins, null is NULL, a Json column validates the decoded
 * text, other types refuse it, and bounds outside the array throw IndexOutOfBoundsException. Strings set from bytes
 * read back equal to the same strings set with setString, whatever mix, length and count of rows.
 */
class Utf8ValuesFollowTheRowAppenderRulesTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("rules")
            .addTag("host", DataType.String).addField("msg", DataType.String).addField("j", DataType.Json)
            .addField("small", DataType.Int8).addField("bin", DataType.Binary).addField("f", DataType.Float64)
            .addField("b", DataType.Bool).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final int HOST = 0, MSG = 1, J = 2, SMALL = 3, BIN = 4, F = 5, B = 6, TS = 7;
    private static final byte[] BAD = {'a', 'b', (byte) 0xE2, (byte) 0x82, 'c'};

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static RowAppender set(RowAppender a, int col, String s) {
        byte[] b = utf8(s);
        return a.setUtf8(col, b, 0, b.length);
    }

    @Test
    void aRefusedValueMidRowDropsThatRowOnlyAndTheNextSetterStartsANewRow() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        set(a, HOST, "h0").setLong(SMALL, 1).setLong(TS, 0).endRow();
        set(a, HOST, "h1-dropped" + "x".repeat(200)).setLong(SMALL, 7).setDouble(F, 1.5).setBoolean(B, true);
        set(a, MSG, "long text that was packed ".repeat(20));
        InvalidDataException e = assertThrows(InvalidDataException.class, () -> a.setUtf8(J, BAD, 0, BAD.length));
        assertEquals("j", e.column());
        InvalidDataException e2 = assertThrows(InvalidDataException.class,
                () -> set(a, HOST, "x").setLong(SMALL, 1000));
        assertEquals(e.row(), e2.row(), "both refusals name the same row: the one being built");
        assertTrue(e.getMessage().contains("rules"), e.getMessage());
        a.setLong(TS, 2).endRow();
        set(a, MSG, "m3").setLong(TS, 3).endRow();
        assertEquals(3, t.rowCount());
        assertEquals("h0", t.column(HOST).getString(0));
        for (int c : new int[] {HOST, MSG, J, SMALL, BIN, F, B}) {
            assertTrue(t.column(c).isNull(1), "column " + c + " of the row after the refused one is NULL");
        }
        assertEquals(2, t.column(TS).getLong(1));
        assertEquals("m3", t.column(MSG).getString(2));
        assertTrue(t.column(HOST).isNull(2));
    }

    @Test
    void theLastValueSetInARowWinsWhicheverSetterSetIt() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        set(a, MSG, "first").setString(MSG, "second").setLong(TS, 0).endRow();
        a.setString(MSG, "first").setLong(TS, 1);
        set(a, MSG, "zweite \u00FC").endRow();
        set(a, MSG, "x".repeat(500)).setNull(MSG).setLong(TS, 2).endRow();
        a.setUtf8(MSG, null, 0, 0);
        set(a, MSG, "after null").setLong(TS, 3).endRow();
        set(a, MSG, "y".repeat(300)).setUtf8(MSG, null, 0, 0).setLong(TS, 4).endRow();
        set(a, MSG, "\uD83D\uDE00".repeat(100));
        set(a, MSG, "short").setLong(TS, 5).endRow();
        set(a, MSG, "kept").setLong(TS, 6);
        assertThrows(InvalidDataException.class, () -> a.setUtf8(MSG, BAD, 0, BAD.length));
        set(a, MSG, "new row").setLong(TS, 7).endRow();
        assertEquals(7, t.rowCount());
        assertEquals("second", t.column(MSG).getString(0));
        assertEquals("zweite \u00FC", t.column(MSG).getString(1));
        assertTrue(t.column(MSG).isNull(2));
        assertEquals("after null", t.column(MSG).getString(3));
        assertTrue(t.column(MSG).isNull(4));
        assertEquals("short", t.column(MSG).getString(5));
        assertArrayEquals(utf8("short"), t.column(MSG).getBytes(5));
        assertEquals("new row", t.column(MSG).getString(6));
        assertEquals(7, t.column(TS).getLong(6));
    }

    @Test
    void aJsonColumnTakesTheTextAsSetStringDoes() {
        String[] docs = {"{\"a\":1}", "[1,2,\"\u00E9\u20AC\uD83D\uDE00\"]", "\"\u65E5\u672C\"", "null", "3.5",
                " { \"k\" : [ true , false ] } ", "{\"long\":\"" + "z".repeat(5000) + "\"}"};
        Table fromBytes = Table.from(SCHEMA);
        Table fromStrings = Table.from(SCHEMA);
        for (int i = 0; i < docs.length; i++) {
            byte[] inside = utf8("\u00E9" + docs[i] + "}");
            fromBytes.appender().setUtf8(J, inside, 2, inside.length - 3).setLong(TS, i).endRow();
            fromStrings.appender().setString(J, docs[i]).setLong(TS, i).endRow();
        }
        assertEquals(docs.length, fromBytes.rowCount());
        for (int i = 0; i < docs.length; i++) {
            assertEquals(fromStrings.column(J).getString(i), fromBytes.column(J).getString(i), "doc " + i);
        }
        RowAppender a = fromBytes.appender();
        for (String notJson : new String[] {"{", "{\"a\":}", "abc", "{\"a\":1} x"}) {
            assertThrows(InvalidDataException.class, () -> fromStrings.appender().setString(J, notJson).setLong(TS, 0)
                    .endRow(), "setString refuses " + notJson);
            assertThrows(InvalidDataException.class, () -> set(a, J, notJson).setLong(TS, 0).endRow(),
                    "setUtf8 refuses " + notJson);
        }
        assertEquals(docs.length, fromBytes.rowCount());
    }

    @Test
    void malformedBytesForAJsonColumnAreRefusedNotReplaced() {
        byte[][] bad = {{'"', 'a', (byte) 0xC0, (byte) 0xAF, '"'}, {'"', (byte) 0xED, (byte) 0xB0, (byte) 0x80, '"'},
                {'"', (byte) 0xFF, '"'}, {'[', '"', (byte) 0xE2, (byte) 0x82, '"', ']'}};
        StringBuilder accepted = new StringBuilder();
        for (byte[] b : bad) {
            Table t = Table.from(SCHEMA);
            try {
                t.appender().setUtf8(J, b, 0, b.length).setLong(TS, 0).endRow();
                accepted.append("\n  stored ").append(t.column(J).getString(0).replace("\uFFFD", "<U+FFFD>"));
            } catch (InvalidDataException expected) {
                assertEquals("j", expected.column());
            }
        }
        assertEquals("", accepted.toString(), "malformed UTF-8 given to a Json column was accepted");
    }

    @Test
    void columnsOfOtherTypesRefuseIt() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        byte[] one = utf8("1");
        for (int c : new int[] {SMALL, BIN, F, B, TS}) {
            set(a, HOST, "h");
            assertThrows(IllegalArgumentException.class, () -> a.setUtf8(c, one, 0, 1).setLong(TS, 0).endRow(),
                    "column " + SCHEMA.column(c).name());
            set(a, MSG, "ok").setLong(TS, 1).endRow();
        }
        assertEquals(5, t.rowCount());
        for (int r = 0; r < 5; r++) {
            assertTrue(t.column(HOST).isNull(r), "the refused row's host did not stay");
            assertTrue(t.column(BIN).isNull(r));
            assertEquals("ok", t.column(MSG).getString(r));
        }
    }

    @Test
    void boundsOutsideTheArrayThrowIndexOutOfBounds() {
        byte[] b = utf8("hello");
        RowAppender a = Table.from(SCHEMA).appender();
        int[][] bad = {{-1, 1}, {0, -1}, {0, 6}, {5, 1}, {6, 0}, {1, Integer.MAX_VALUE}, {Integer.MAX_VALUE, 1},
                {Integer.MIN_VALUE, 0}, {3, 3}};
        for (int[] ol : bad) {
            assertThrows(IndexOutOfBoundsException.class, () -> a.setUtf8(MSG, b, ol[0], ol[1]),
                    "offset " + ol[0] + " length " + ol[1]);
        }
        Table t = Table.from(SCHEMA);
        t.appender().setUtf8(MSG, b, 5, 0).setUtf8(HOST, b, 0, 5).setLong(TS, 0).endRow();
        assertEquals("", t.column(MSG).getString(0));
        assertFalse(t.column(MSG).isNull(0));
        assertEquals("hello", t.column(HOST).getString(0));
    }

    static String randomText(Random r, int n) {
        StringBuilder s = new StringBuilder(n);
        while (s.length() < n) {
            int k = r.nextInt(10);
            if (k < 5) {
                s.append((char) (0x20 + r.nextInt(0x5f)));
            } else if (k < 7) {
                s.append((char) (0x80 + r.nextInt(0x780)));
            } else if (k < 9) {
                char c = (char) (0x800 + r.nextInt(0xF7FF));
                s.append(Character.isSurrogate(c) ? 'S' : c);
            } else {
                s.appendCodePoint(0x10000 + r.nextInt(0x100000));
            }
        }
        return s.toString();
    }

    @Test
    void mixedSettersAcrossManyRowsOfEverySizeReadBackAsTheirStrings() {
        Random r = new Random(42);
        Table mixed = Table.from(SCHEMA);
        Table strings = Table.from(SCHEMA);
        List<String> expected = new ArrayList<>();
        RowAppender a = mixed.appender();
        RowAppender b = strings.appender();
        for (int round = 0; round < 3; round++) {
            mixed.reset();
            strings.reset();
            expected.clear();
            for (int i = 0; i < 60_000; i++) {
                int size = i % 1000 == 0 ? 200_000 + r.nextInt(100_000) : i % 10 == 0 ? 64 + r.nextInt(3000)
                        : r.nextInt(70);
                String s = i % 97 == 0 ? null : randomText(r, size);
                expected.add(s);
                if (s != null && (i + round) % 3 != 0) {
                    int off = 1 + r.nextInt(7);
                    byte[] enc = utf8(s);
                    byte[] arr = new byte[off + enc.length + r.nextInt(5)];
                    System.arraycopy(enc, 0, arr, off, enc.length);
                    a.setUtf8(MSG, arr, off, enc.length);
                    a.setUtf8(HOST, enc, 0, enc.length);
                } else {
                    a.setString(MSG, s).setString(HOST, s);
                }
                if (i % 501 == 0) {
                    assertThrows(InvalidDataException.class, () -> a.setUtf8(J, BAD, 0, BAD.length));
                    a.setLong(TS, i);
                    expected.set(expected.size() - 1, null);
                    a.endRow();
                } else {
                    a.setLong(TS, i).endRow();
                }
                if (i % 501 == 0) {
                    b.setLong(TS, i).endRow();
                } else {
                    b.setString(MSG, s).setString(HOST, s).setLong(TS, i).endRow();
                }
            }
            assertEquals(expected.size(), mixed.rowCount());
            for (int i = 0; i < expected.size(); i++) {
                String s = expected.get(i);
                for (int c : new int[] {HOST, MSG}) {
                    if (s == null) {
                        assertTrue(mixed.column(c).isNull(i), "round " + round + " row " + i);
                    } else {
                        assertFalse(mixed.column(c).isNull(i), "round " + round + " row " + i);
                        assertArrayEquals(strings.column(c).getBytes(i), mixed.column(c).getBytes(i),
                                "round " + round + " row " + i);
                        assertEquals(s, mixed.column(c).getString(i), "round " + round + " row " + i);
                    }
                }
            }
        }
    }

    @Test
    void bytesReadBackStayPutWhenTheTableIsRefilled() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        List<byte[]> got = new ArrayList<>();
        List<String> want = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String s = (i + ":" + "\u00E9t\u00E9 ").repeat(10 + i);
            byte[] arr = utf8("##" + s);
            a.setUtf8(MSG, arr, 2, arr.length - 2).setLong(TS, i).endRow();
            want.add(s);
        }
        for (int i = 0; i < 50; i++) {
            got.add(t.column(MSG).getBytes(i));
        }
        t.reset();
        for (int i = 0; i < 50; i++) {
            String s = ("other " + i).repeat(30);
            byte[] arr = utf8(s);
            a.setUtf8(MSG, arr, 0, arr.length).setLong(TS, i).endRow();
        }
        for (int i = 0; i < 50; i++) {
            assertEquals(want.get(i), new String(got.get(i), StandardCharsets.UTF_8), "row " + i);
            assertEquals(("other " + i).repeat(30), t.column(MSG).getString(i));
        }
    }

    @Test
    void aTextOfManyMegabytesAtAnOddOffsetReadsBackWhole() {
        String s = randomText(new Random(7), 3_000_001);
        byte[] enc = utf8(s);
        byte[] arr = new byte[enc.length + 3];
        System.arraycopy(enc, 0, arr, 3, enc.length);
        Table t = Table.from(SCHEMA);
        t.appender().setUtf8(MSG, arr, 3, enc.length).setLong(TS, 0).endRow();
        t.appender().setString(MSG, "after").setLong(TS, 1).endRow();
        assertEquals(s, t.column(MSG).getString(0));
        assertEquals("after", t.column(MSG).getString(1));
        arr[arr.length - 1] = (byte) 0xC3; // a truncated sequence at the very end
        assertThrows(InvalidDataException.class, () -> t.appender().setUtf8(MSG, arr, 0, arr.length));
    }
}
