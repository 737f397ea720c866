package dev.sluice.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Black-box tests of the typed appender's text columns on a heap {@link Table} reused with {@code reset()}:
 * every stored value is read back through the public read API and compared with what the test itself sent.
 */
class TableTextAppenderTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("text_t").addTag("host", DataType.String)
            .addField("msg", DataType.String).addField("doc", DataType.Json).addField("v", DataType.Float64)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    /** A pool of distinct String instances with mixed content: ASCII, empty, accents, CJK, emoji. */
    static String[] pool(int n, String prefix) {
        String[] p = new String[n];
        String[] flavours = {"", "é", "日本語", "🚀", "a\u0000b", "x"};
        for (int i = 0; i < n; i++) {
            p[i] = i == 0 ? "" : prefix + i + flavours[i % flavours.length];
        }
        return p;
    }

    /** What one row should hold: text or null per text column, and its numbers. */
    record Row(String host, String msg, String doc, double v, long ts) {
    }

    static void assertTableHolds(Table t, List<Row> rows, String where) {
        assertEquals(rows.size(), t.rowCount(), where + ": row count");
        for (int r = 0; r < rows.size(); r++) {
            Row e = rows.get(r);
            assertText(t, 0, r, e.host(), where);
            assertText(t, 1, r, e.msg(), where);
            assertText(t, 2, r, e.doc(), where);
            assertEquals(e.v(), t.column(3).getDouble(r), where + " row " + r + " v");
            assertEquals(e.ts(), t.column(4).getLong(r), where + " row " + r + " ts");
        }
    }

    static void assertText(Table t, int col, int r, String expected, String where) {
        if (expected == null) {
            assertTrue(t.column(col).isNull(r), where + " row " + r + " col " + col + " should be NULL");
        } else {
            assertTrue(!t.column(col).isNull(r), where + " row " + r + " col " + col + " should not be NULL");
            assertEquals(expected, t.column(col).getString(r), where + " row " + r + " col " + col);
            assertArrayEquals(expected.getBytes(StandardCharsets.UTF_8), t.column(col).getBytes(r),
                    where + " row " + r + " col " + col + " bytes");
        }
    }

    @ParameterizedTest(name = "pool of {0} distinct strings")
    @ValueSource(ints = {10, 1_000, 5_000, 100_000})
    void aResetTableRefilledFromAPoolStoresEveryRowsOwnTextOnEveryFill(int poolSize) {
        String[] hosts = pool(poolSize, "host-");
        String[] msgs = pool(Math.max(10, poolSize / 3), "msg-");
        Random rnd = new Random(poolSize);
        int rowsPerFill = Math.min(20_000, Math.max(2_000, poolSize));
        int fills = poolSize >= 100_000 ? 4 : 12;
        Table t = Table.from(SCHEMA, 64);
        RowAppender a = t.appender();
        long ts = 0;
        for (int fill = 0; fill < fills; fill++) {
            t.reset();
            List<Row> expected = new ArrayList<>();
            // Fills vary in size: a short fill after a long one must not show the long one's rows.
            int n = fill % 3 == 2 ? rowsPerFill / 7 : rowsPerFill;
            for (int i = 0; i < n; i++) {
                String host = hosts[rnd.nextInt(hosts.length)];
                int kind = rnd.nextInt(6);
                String msg = kind == 0 ? null
                        : kind == 1 ? new String(msgs[rnd.nextInt(msgs.length)]) // equal but distinct instance
                        : kind == 2 ? host // the same instance in two columns
                        : msgs[rnd.nextInt(msgs.length)];
                String doc = kind == 3 ? null : "{\"h\":\"" + host.replace("\u0000", "") + "\",\"i\":" + (i % 5) + "}";
                double v = rnd.nextDouble();
                if (i % 2 == 0) {
                    a.setString(0, host);
                    if (msg != null) {
                        a.setString(1, msg);
                    }
                    a.setString(2, doc).setDouble(3, v).setLong(4, ts).endRow();
                } else {
                    t.addRow(host, msg, doc, v, ts); // addRow mixed with the appender between rows
                }
                expected.add(new Row(host, msg, doc, v, ts));
                ts++;
            }
            t.complete();
            assertTableHolds(t, expected, "pool " + poolSize + " fill " + fill);
        }
    }

    @Test
    void theSameStringInstanceInManyRowsAndFillsIsStoredEveryTime() {
        String shared = "shared-é-日本-🚀";
        Table t = Table.from(SCHEMA, 16);
        RowAppender a = t.appender();
        for (int fill = 0; fill < 20; fill++) {
            t.reset();
            List<Row> expected = new ArrayList<>();
            for (int i = 0; i < 300 + fill; i++) {
                String msg = i % 4 == 0 ? shared + i : shared;
                a.setString(0, shared).setString(1, msg).setNull(2).setDouble(3, i).setLong(4, i).endRow();
                expected.add(new Row(shared, msg, null, i, i));
            }
            assertTableHolds(t, expected, "fill " + fill);
        }
    }

    @Test
    void equalButDistinctInstancesAndNewInstancesWithOtherTextAreEachStoredAsGiven() {
        Table t = Table.from(SCHEMA, 4);
        RowAppender a = t.appender();
        for (int fill = 0; fill < 10; fill++) {
            t.reset();
            List<Row> expected = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                // A new instance every row, its content changing with the fill: a cache keyed by anything but
                // the exact instance would hand back an earlier fill's text.
                String host = new StringBuilder("h").append(i % 10).toString();
                String msg = new String(("m" + (i % 10) + "-fill" + fill).toCharArray());
                a.setString(0, host).setString(1, new StringBuilder(msg)).setString(2, "[" + fill + "]")
                        .setDouble(3, fill).setLong(4, i).endRow();
                expected.add(new Row(host, msg, "[" + fill + "]", fill, i));
            }
            assertTableHolds(t, expected, "fill " + fill);
        }
    }

    @Test
    void emptyStringsAreStoredAsEmptyNotNullAndNullsAsNull() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        for (int fill = 0; fill < 5; fill++) {
            t.reset();
            List<Row> expected = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String host = i % 3 == 0 ? "" : "h" + i;
                String msg = i % 3 == 1 ? null : i % 3 == 2 ? "" : "m";
                if (i % 2 == 0) {
                    a.setString(0, host).setString(1, msg).setString(2, (String) null).setDouble(3, 1).setLong(4, i).endRow();
                } else {
                    t.addRow(host, msg, null, 1.0, (long) i);
                }
                expected.add(new Row(host, msg, null, 1, i));
            }
            assertTableHolds(t, expected, "fill " + fill);
        }
    }

    @Test
    void textOverAMegabyteIsStoredExactlyAcrossFillsAlongsideShortPooledText() {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < (1 << 20) + 17) {
            sb.append("long-é-日本-🚀-").append(sb.length());
        }
        String big = sb.toString();
        String big2 = big.substring(1) + "!";
        String[] hosts = pool(50, "h");
        Table t = Table.from(SCHEMA, 8);
        RowAppender a = t.appender();
        for (int fill = 0; fill < 6; fill++) {
            t.reset();
            List<Row> expected = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String msg = i % 5 == 0 ? big : i % 5 == 1 ? big2 : hosts[(i + fill) % hosts.length];
                a.setString(0, hosts[i % hosts.length]).setString(1, msg).setDouble(3, i).setLong(4, i).endRow();
                expected.add(new Row(hosts[i % hosts.length], msg, null, i, i));
            }
            assertTableHolds(t, expected, "fill " + fill);
        }
    }

    @Test
    void aRowAbandonedByABadValueLeavesNoTraceAndTheNextRowIsStoredWhole() {
        Table t = Table.from(SCHEMA, 4);
        RowAppender a = t.appender();
        for (int fill = 0; fill < 4; fill++) {
            t.reset();
            List<Row> expected = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                if (i % 10 == 3) {
                    // Text set, then bad JSON: the row is dropped with an exception naming table, column, row.
                    int row = t.rowCount();
                    InvalidDataException e = assertThrows(InvalidDataException.class,
                            () -> a.setString(0, "abandoned-host").setString(1, "abandoned-msg").setString(2, "{bad"));
                    assertEquals("text_t", e.table());
                    assertEquals("doc", e.column());
                    assertEquals(row, e.row());
                    assertEquals(row, t.rowCount(), "the abandoned row was not added");
                    // A text value refused by a non-text column.
                    assertThrows(InvalidDataException.class, () -> a.setString(1, "abandoned").setString(3, "1.5"));
                    // addRow refused midway, after its text columns were stored.
                    assertThrows(InvalidDataException.class,
                            () -> t.addRow("abandoned-host", "abandoned-msg", "{\"ok\":1}", "not a double", 1L));
                    assertEquals(row, t.rowCount());
                }
                // The next row leaves msg and doc unset: they must read NULL, not the abandoned values.
                a.setString(0, "h" + i).setDouble(3, i).setLong(4, i).endRow();
                expected.add(new Row("h" + i, null, null, i, i));
            }
            assertTableHolds(t, expected, "fill " + fill);
        }
    }

    @Test
    void aRowLeftOpenWhenTheTableIsResetIsDroppedAndTheRefillIsClean() {
        Table t = Table.from(SCHEMA, 4);
        RowAppender a = t.appender();
        a.setString(0, "first").setString(1, "m").setDouble(3, 1).setLong(4, 1).endRow();
        a.setString(0, "open-host").setString(1, "open-msg").setString(2, "{}");
        t.reset();
        a.setDouble(3, 2).setLong(4, 2).endRow();
        assertTableHolds(t, List.of(new Row(null, null, null, 2, 2)), "after reset");
    }

    @Test
    void unpairedSurrogatesAreStoredTheSameWayByTheAppenderAndAddRow() {
        String[] odd = {"a\uD800b", "\uDC00", "x\uD83D", "\uD83D\uDE80ok", "\uDE80\uD83D"};
        Table viaAppender = Table.from(SCHEMA);
        Table viaAddRow = Table.from(SCHEMA);
        for (int i = 0; i < odd.length; i++) {
            viaAppender.appender().setString(0, odd[i]).setString(1, odd[i]).setDouble(3, 0).setLong(4, i).endRow();
            viaAddRow.addRow(odd[i], odd[i], null, 0.0, (long) i);
        }
        for (int i = 0; i < odd.length; i++) {
            assertArrayEquals(viaAddRow.column(0).getBytes(i), viaAppender.column(0).getBytes(i), "row " + i);
            assertArrayEquals(viaAddRow.column(1).getBytes(i), viaAppender.column(1).getBytes(i), "row " + i);
            // What they store is the JDK's UTF-8 encoding (an unpaired surrogate becomes '?').
            assertArrayEquals(odd[i].getBytes(StandardCharsets.UTF_8), viaAppender.column(0).getBytes(i), "row " + i);
        }
        assertEquals("a?b", viaAppender.column(0).getString(0));
    }

    /** The documented behaviour (RowAppender.setString): a lone surrogate is stored as '?', by both row forms. */
    @Test
    void aLoneSurrogateIsStoredAsAQuestionMarkByBothRowForms() {
        Table t = Table.from(SCHEMA);
        t.appender().setString(0, "a\uD800b").setDouble(3, 0).setLong(4, 0).endRow();
        t.addRow("h", "x\uDC00", null, 1.0, 1L);
        assertEquals(2, t.rowCount());
        assertEquals("a?b", t.column(0).getString(0));
        assertEquals("x?", t.column(1).getString(1));
    }

    @Test
    void aTimestampSetterGivenAColumnOutsideTheSchemaDropsTheRowItInterrupts() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        a.setString(0, "abandoned").setString(1, "abandoned");
        RuntimeException e = assertThrows(RuntimeException.class, () -> a.setTimestamp(9, Instant.EPOCH));
        // Documented: a refused value drops the row being built; the next setter starts a new row.
        a.setDouble(3, 1).setLong(4, 1).endRow();
        assertEquals(1, t.rowCount());
        assertNull(t.column(0).isNull(0) ? null : t.column(0).getString(0), "the abandoned row's host leaked");
        assertTrue(e.getMessage() != null && e.getMessage().contains("text_t"),
                "the exception names the table (as setString(9, ..) does): " + e);
    }

    @Test
    void otherSettersGivenAColumnOutsideTheSchemaDropTheRowItInterrupts() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        a.setString(0, "abandoned");
        assertThrows(IndexOutOfBoundsException.class, () -> a.setString(9, "x"));
        a.setDouble(3, 1).setLong(4, 1).endRow();
        assertTrue(t.column(0).isNull(0), "the abandoned row's host leaked");
    }

    @Test
    void addRowCalledWhileAnAppenderRowIsOpenDoesNotCorruptEitherRow() {
        Table t = Table.from(SCHEMA, 4);
        // Fill once so the arrays hold an earlier fill's values, then reset.
        t.addRow("old0", "old0", null, 0.0, 100L);
        t.addRow("old1", "old1", null, 0.0, 101L);
        t.reset();
        RowAppender a = t.appender();
        a.setString(0, "appender-host");
        try {
            t.addRow("addrow-host", "addrow-msg", null, 1.0, 1L);
        } catch (RuntimeException refused) {
            // Refusing addRow in the middle of an appender row is fine too.
        }
        try {
            a.setString(1, "appender-msg").setDouble(3, 2).setLong(4, 2).endRow();
        } catch (RuntimeException refused) {
            // So is refusing the rest of the appender row.
        }
        for (int r = 0; r < t.rowCount(); r++) {
            String host = t.column(0).isNull(r) ? null : t.column(0).getString(r);
            String msg = t.column(1).isNull(r) ? null : t.column(1).getString(r);
            long ts = t.column(4).getLong(r);
            boolean isAddRow = "addrow-host".equals(host) && "addrow-msg".equals(msg) && ts == 1L;
            boolean isAppender = "appender-host".equals(host) && "appender-msg".equals(msg) && ts == 2L;
            if (!isAddRow && !isAppender) {
                fail("row " + r + " is neither row the caller gave: host=" + host + " msg=" + msg + " ts=" + ts);
            }
        }
    }

    @Test
    void anAppenderRowOpenWhenTheTableIsCompletedIsNotAddedToTheCompletedTable() {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        a.setString(0, "h").setDouble(3, 0).setLong(4, 0).endRow();
        a.setString(0, "late");
        t.complete();
        try {
            a.setDouble(3, 1).setLong(4, 1).endRow();
        } catch (RuntimeException refused) {
            // expected: the table is completed
        }
        assertEquals(1, t.rowCount(), "a completed (read-only) table grew");
    }

    @Test
    void oneStringBuilderChangedBetweenRowsStoresEachRowsTextAtTheTimeItWasSet() {
        StringBuilder sb = new StringBuilder();
        Table t = Table.from(SCHEMA, 8);
        RowAppender a = t.appender();
        for (int fill = 0; fill < 5; fill++) {
            t.reset();
            List<Row> expected = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                sb.setLength(0);
                sb.append("h").append(i % 20).append("-é-").append(fill);
                String now = sb.toString();
                a.setString(0, sb).setString(1, sb).setDouble(3, i).setLong(4, i);
                sb.append("-changed-after-the-setter"); // must not reach the stored row
                a.endRow();
                expected.add(new Row(now, now, null, i, i));
            }
            assertTableHolds(t, expected, "fill " + fill);
        }
    }

    @Test
    void jsonFromMapsAndTextIsStoredAsGivenAcrossFills() {
        Table t = Table.from(SCHEMA, 8);
        RowAppender a = t.appender();
        String shared = "{\"k\":\"é🚀\"}";
        for (int fill = 0; fill < 6; fill++) {
            t.reset();
            List<Row> expected = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                if (i % 3 == 0) {
                    a.setValue(2, java.util.Map.of("fill", fill, "i", i));
                    expected.add(new Row("h", null, "{\"fill\":" + fill + ",\"i\":" + i + "}", i, i));
                    // Map order is unspecified: compare as parsed below, so record both orders.
                } else if (i % 3 == 1) {
                    a.setString(2, shared);
                    expected.add(new Row("h", null, shared, i, i));
                } else {
                    a.setString(2, " [1, \"" + fill + "\"] ");
                    expected.add(new Row("h", null, " [1, \"" + fill + "\"] ", i, i));
                }
                a.setString(0, "h").setDouble(3, i).setLong(4, i).endRow();
            }
            assertEquals(expected.size(), t.rowCount());
            for (int r = 0; r < expected.size(); r++) {
                String got = t.column(2).getString(r);
                String want = expected.get(r).doc();
                if (r % 3 == 0) {
                    String swapped = "{\"i\":" + r + ",\"fill\":" + fill + "}";
                    assertTrue(want.equals(got) || swapped.equals(got), "fill " + fill + " row " + r + ": " + got);
                } else {
                    assertEquals(want, got, "fill " + fill + " row " + r);
                }
            }
        }
    }

    @Test
    void settingATextColumnTwiceInARowKeepsTheLastValueWhetherTextOrNull() {
        Table t = Table.from(SCHEMA, 2);
        RowAppender a = t.appender();
        for (int fill = 0; fill < 3; fill++) {
            t.reset();
            List<Row> expected = new ArrayList<>();
            String longer = "a much longer first value é🚀 ".repeat(50);
            a.setString(0, "h").setString(1, longer).setString(1, "short").setDouble(3, 0).setLong(4, 0).endRow();
            expected.add(new Row("h", "short", null, 0, 0));
            a.setString(0, "h").setString(1, "text").setNull(1).setDouble(3, 1).setLong(4, 1).endRow();
            expected.add(new Row("h", null, null, 1, 1));
            a.setString(0, "h").setNull(1).setString(1, "back").setDouble(3, 2).setLong(4, 2).endRow();
            expected.add(new Row("h", "back", null, 2, 2));
            a.setString(0, "h").setString(1, "").setString(1, longer).setDouble(3, 3).setLong(4, 3).endRow();
            expected.add(new Row("h", longer, null, 3, 3));
            assertTableHolds(t, expected, "fill " + fill);
        }
    }

    @Test
    void aRowRefusedForItsMissingTimeIndexLeavesNoTextForTheNextRow() {
        Table t = Table.from(SCHEMA, 2);
        RowAppender a = t.appender();
        a.setString(0, "h0").setDouble(3, 0).setLong(4, 0).endRow();
        InvalidDataException e = assertThrows(InvalidDataException.class,
                () -> a.setString(0, "no-ts").setString(1, "no-ts").setString(2, "{}").endRow());
        assertEquals("ts", e.column());
        assertEquals(1, e.row());
        assertThrows(InvalidDataException.class, () -> a.setString(1, "null-ts").setNull(4));
        a.setDouble(3, 1).setLong(4, 1).endRow();
        assertTableHolds(t, List.of(new Row("h0", null, null, 0, 0), new Row(null, null, null, 1, 1)), "table");
    }
}
