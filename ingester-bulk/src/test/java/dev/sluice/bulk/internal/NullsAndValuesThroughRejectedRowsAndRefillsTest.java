package dev.sluice.bulk.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.SharesJvm;
import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.junit.jupiter.api.Test;

/**
 * Every cell of a bulk batch reads back as written (null or its value, and each column's null count), whatever
 * the order of nulls and values in a column: nulls only after many values, past the vectors' first growth, in
 * rows refused half-way and written again (a null over a value the refused row had set, and a value over a null),
 * through {@code addRow} and the row appender, batch after batch on the same vectors (refilled, or renewed).
 */
@SharesJvm
class NullsAndValuesThroughRejectedRowsAndRefillsTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("cells")
            .addTimestamp("ts", DataType.TimestampMillisecond)
            .addTag("host", DataType.String)
            .addField("cpu", DataType.Float64)
            .addField("n", DataType.Int64)
            .addField("flag", DataType.Bool)
            .addField("f32", DataType.Float32)
            .addField("msg", DataType.String)
            .build();

    /** Short and long text, ASCII and not: two-byte, three-byte, surrogate pairs, unpaired surrogates, '?'. */
    private static final String[] TEXTS = {"", "host-0001", "?", "a?b", "é", "host-é", "\u0141ódź", "\u4e41\u4e42",
        "\uD83D\uDE00", "x\uD83D", "\uDE00y", "?\uD83D?", "\u00ff\u0080", "host-" + "x".repeat(70),
        "\u0141".repeat(40), "z".repeat(63), "\u00e9".repeat(64)};

    private static final ArrowTableBufferRoot.Guard NO_GUARD = new ArrowTableBufferRoot.Guard() {
        @Override
        public void enter() {
        }

        @Override
        public void exit(int rows) {
        }
    };

    /** A value for a column, or null (never for the time index). */
    private static Object value(int column, Random rnd, double nulls) {
        if (column > 0 && rnd.nextDouble() < nulls) {
            return null;
        }
        switch (column) {
            case 0: return 1_700_000_000_000L + rnd.nextInt(1_000_000);
            case 1: case 6:
                String t = TEXTS[rnd.nextInt(TEXTS.length)];
                return rnd.nextBoolean() ? t : new String(t); // the same instance again, or an equal one
            case 2: return rnd.nextDouble() * 100;
            case 3: return rnd.nextLong();
            case 4: return rnd.nextBoolean();
            default: return (float) rnd.nextInt(1 << 20) / 8;
        }
    }

    @Test
    void everyCellReadsBackAsWrittenThroughRefusedRowsGrowthAndRefills() {
        Random rnd = new Random(11);
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableBufferRoot root = new ArrowTableBufferRoot(SCHEMA, allocator, 16, Long.MAX_VALUE, NO_GUARD);
            try {
                for (int batch = 0; batch < 24; batch++) {
                    int rows = 1 + rnd.nextInt(batch % 3 == 0 ? 40 : 3_000);
                    double[] nulls = new double[SCHEMA.columnCount()];
                    int[] firstNullRow = new int[SCHEMA.columnCount()];
                    for (int c = 0; c < nulls.length; c++) {
                        // none, rare, half; some columns hold values only until a late row
                        nulls[c] = new double[] {0, 0, 0.005, 0.5}[rnd.nextInt(4)];
                        firstNullRow[c] = rnd.nextInt(4) == 0 ? rnd.nextInt(rows) : 0;
                    }
                    List<Object[]> expected = new ArrayList<>();
                    for (int r = 0; r < rows; r++) {
                        Object[] row = new Object[SCHEMA.columnCount()];
                        for (int c = 0; c < row.length; c++) {
                            row[c] = value(c, rnd, r >= firstNullRow[c] ? nulls[c] : 0);
                        }
                        if (rnd.nextInt(10) == 0) {
                            refuse(root, rnd, expected.size(), rnd.nextBoolean());
                        }
                        add(root, row, rnd.nextBoolean());
                        expected.add(row);
                    }
                    check(root, expected, batch);
                    if (rnd.nextBoolean()) {
                        root.unload(null).close();
                        root.reset();
                    } else {
                        try (ArrowRecordBatch sent = root.unload(null)) {
                            assertTrue(root.renew());
                            assertEquals(expected.size(), sent.getLength());
                        }
                    }
                }
            } finally {
                root.close();
            }
        }
    }

    /** A row refused at a random column, after values and nulls in the columns before it. */
    private static void refuse(ArrowTableBufferRoot root, Random rnd, int at, boolean appender) {
        int bad = 1 + rnd.nextInt(SCHEMA.columnCount() - 1);
        Object[] row = new Object[SCHEMA.columnCount()];
        for (int c = 0; c < bad; c++) {
            row[c] = value(c, rnd, 0.5);
        }
        row[bad] = UUID.randomUUID(); // no column type takes it
        for (int c = bad + 1; c < row.length; c++) {
            row[c] = value(c, rnd, 0.5);
        }
        InvalidDataException e = assertThrows(InvalidDataException.class, () -> add(root, row, appender));
        assertEquals(at, e.row());
        assertEquals(at, root.rowCount());
    }

    private static void add(ArrowTableBufferRoot root, Object[] row, boolean appender) {
        if (!appender) {
            root.addRow(row.clone());
            return;
        }
        RowAppender a = root.appender();
        for (int c = 0; c < row.length; c++) {
            Object v = row[c];
            if (v == null) {
                if (c % 2 == 0) {
                    a.setNull(c);
                } // else left unset: a null too
            } else if (v instanceof Double) {
                a.setDouble(c, (Double) v);
            } else if (v instanceof Long) {
                a.setLong(c, (Long) v);
            } else if (v instanceof Float) {
                a.setDouble(c, (Float) v);
            } else if (v instanceof Boolean) {
                a.setBoolean(c, (Boolean) v);
            } else if (v instanceof String) {
                a.setString(c, (String) v);
            } else {
                a.setValue(c, v);
            }
        }
        a.endRow();
    }

    private static void check(ArrowTableBufferRoot root, List<Object[]> expected, int batch) {
        root.complete();
        assertEquals(expected.size(), root.rowCount());
        for (int c = 0; c < SCHEMA.columnCount(); c++) {
            FieldVector v = root.vector(c);
            int nullCount = 0;
            for (int r = 0; r < expected.size(); r++) {
                Object want = expected.get(r)[c];
                String where = "batch " + batch + ", column " + SCHEMA.column(c).name() + ", row " + r;
                assertEquals(want == null, v.isNull(r), where);
                if (want == null) {
                    nullCount++;
                    continue;
                }
                switch (c) {
                    case 0: assertEquals(want, ((TimeStampMilliVector) v).get(r), where); break;
                    case 1: case 6:
                        assertArrayEquals(((String) want).getBytes(StandardCharsets.UTF_8), ((VarCharVector) v).get(r),
                                where);
                        break;
                    case 2: assertEquals(want, ((Float8Vector) v).get(r), where); break;
                    case 3: assertEquals(want, ((BigIntVector) v).get(r), where); break;
                    case 4: assertEquals(want, ((BitVector) v).get(r) == 1, where); break;
                    default: assertEquals(want, ((Float4Vector) v).get(r), where);
                }
            }
            assertEquals(nullCount, v.getNullCount(), "batch " + batch + ", column " + SCHEMA.column(c).name());
        }
    }

    @Test
    void aNullAfterValuesLeavesTheValuesBeforeItSetAndAValueOverARefusedRowsNullIsSet() {
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableBufferRoot root = new ArrowTableBufferRoot(SCHEMA, allocator, 4, Long.MAX_VALUE, NO_GUARD);
            try {
                List<Object[]> expected = new ArrayList<>();
                for (int r = 0; r < 37; r++) { // past the first growth, not a multiple of 8
                    Object[] row = {(long) r, "h" + r, r * 1.5, (long) r, r % 2 == 0, (float) r, "m"};
                    root.addRow(row.clone());
                    expected.add(row);
                }
                // a refused row that set a null in every column before the refused one, then written with values
                assertThrows(InvalidDataException.class, () -> root.addRow(37L, null, null, null, null, null,
                        UUID.randomUUID()));
                Object[] values = {37L, "h37", 1.0, 2L, true, 3f, "m37"};
                root.addRow(values.clone());
                expected.add(values);
                // a refused row that set values, then written with nulls
                assertThrows(InvalidDataException.class, () -> root.addRow(38L, "x", 1.0, 1L, true, 1f,
                        UUID.randomUUID()));
                Object[] nulls = {38L, null, null, null, null, null, null};
                root.addRow(nulls.clone());
                expected.add(nulls);
                Object[] after = {39L, "h39", 9.0, 9L, false, 9f, "m39"};
                root.addRow(after.clone());
                expected.add(after);
                check(root, expected, 0);
            } finally {
                root.close();
            }
        }
    }

    @Test
    void aColumnSetOnlyInACancelledOrRefusedRowIsNullInTheRowAfterIt() {
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableBufferRoot root = new ArrowTableBufferRoot(SCHEMA, allocator, 4, Long.MAX_VALUE, NO_GUARD);
            try {
                RowAppender a = root.appender();
                a.setLong(0, 1L).setString(1, "h").setDouble(2, 1.0).setLong(3, 7L).endRow();
                a.setLong(0, 2L).setString(1, "gone").setDouble(2, 2.0).setBoolean(4, true);
                a.cancelRow();
                a.setLong(0, 3L).endRow(); // host, cpu and flag left unset: null
                a.setLong(0, 4L).setString(6, "m").setDouble(2, 4.0);
                assertThrows(InvalidDataException.class, () -> a.setValue(3, UUID.randomUUID()));
                a.setLong(0, 5L).setLong(3, 5L).endRow(); // msg and cpu left unset: null
                List<Object[]> expected = List.of(
                        new Object[] {1L, "h", 1.0, 7L, null, null, null},
                        new Object[] {3L, null, null, null, null, null, null},
                        new Object[] {5L, null, null, 5L, null, null, null});
                check(root, expected, 0);
            } finally {
                root.close();
            }
        }
    }
}
