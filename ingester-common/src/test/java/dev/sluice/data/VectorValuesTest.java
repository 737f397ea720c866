package dev.sluice.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** VECTOR(dim) values: what a vector column accepts, how it stores them, and how it refuses the rest. */
class VectorValuesTest {
    static final TableSchema EMB = TableSchema.newBuilder("emb")
            .addTag("doc", DataType.String)
            .addColumn("v", SemanticType.Field, DataType.Vector, new VectorType(3))
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    /** The expected stored form, built bit by bit: dim float32s, little-endian. */
    static byte[] littleEndian(float... elements) {
        byte[] b = new byte[elements.length * 4];
        for (int i = 0; i < elements.length; i++) {
            int bits = Float.floatToRawIntBits(elements[i]);
            for (int k = 0; k < 4; k++) {
                b[4 * i + k] = (byte) (bits >>> (8 * k));
            }
        }
        return b;
    }

    @Test
    void floatArraysDoubleArraysAndListsOfNumbersAreStoredAsLittleEndianFloat32s() {
        Table t = Table.from(EMB)
                .addRow("a", new float[] {1f, -2.5f, Float.NaN}, 1L)
                .addRow("b", new double[] {0.1, 1e30, Double.NEGATIVE_INFINITY}, 2L)
                .addRow("c", List.of(1, 2L, 0.5f), 3L)
                .addRow("d", null, 4L);
        assertArrayEquals(littleEndian(1f, -2.5f, Float.NaN), t.column(1).getBytes(0));
        assertArrayEquals(littleEndian(0.1f, 1e30f, Float.NEGATIVE_INFINITY), t.column(1).getBytes(1));
        assertArrayEquals(littleEndian(1f, 2f, 0.5f), t.column(1).getBytes(2));
        assertTrue(t.column(1).isNull(3));
        assertEquals(DataType.Vector, t.column(1).dataType());
    }

    @Test
    void aVectorOfTheWrongLengthIsRefusedOnAddRowNamingTableColumnAndRow() {
        Table t = Table.from(EMB).addRow("a", new float[] {1f, 2f, 3f}, 1L);
        InvalidDataException e = assertThrows(InvalidDataException.class,
                () -> t.addRow("b", new float[] {1f, 2f}, 2L));
        assertEquals("emb", e.table());
        assertEquals("v", e.column());
        assertEquals(1, e.row());
        assertTrue(e.getMessage().contains("a vector of 2 elements cannot be written to a VECTOR(3) column"),
                e.getMessage());
        assertThrows(InvalidDataException.class, () -> t.addRow("b", List.of(1, 2, 3, 4), 2L));
        assertEquals(1, t.rowCount(), "the refused rows are not counted");
    }

    @Test
    void theTypedAppenderRefusesAWrongLengthAndStoresWhatAddRowStores() {
        Table viaAppender = Table.from(EMB);
        RowAppender a = viaAppender.appender();
        a.setString(0, "a").setValue(1, new float[] {1f, 2f, 3f}).setLong(2, 1L).endRow();
        InvalidDataException e = assertThrows(InvalidDataException.class,
                () -> a.setString(0, "b").setValue(1, new double[] {1, 2, 3, 4}));
        assertEquals("emb", e.table());
        assertEquals("v", e.column());
        assertEquals(1, e.row());
        assertTrue(e.getMessage().contains("a vector of 4 elements"), e.getMessage());
        assertThrows(InvalidDataException.class, () -> a.setBytes(1, new byte[12]),
                "raw bytes are not a vector value: the client checks the dimension");
        assertThrows(InvalidDataException.class, () -> a.setDouble(1, 1.0));
        assertEquals(1, viaAppender.rowCount());
        Table viaAddRow = Table.from(EMB).addRow("a", new float[] {1f, 2f, 3f}, 1L);
        assertArrayEquals(viaAddRow.column(1).getBytes(0), viaAppender.column(1).getBytes(0));
    }

    @Test
    void otherJavaTypesNonNumericElementsAndOutOfRangeDoublesAreRefused() {
        Table t = Table.from(EMB);
        InvalidDataException e = assertThrows(InvalidDataException.class, () -> t.addRow("a", "[1,2,3]", 1L));
        assertTrue(e.getMessage().contains("float[], double[] or a List of Numbers"), e.getMessage());
        e = assertThrows(InvalidDataException.class, () -> t.addRow("a", java.util.Arrays.asList(1f, null, 3f), 1L));
        assertTrue(e.getMessage().contains("vector element 1 is null"), e.getMessage());
        e = assertThrows(InvalidDataException.class, () -> t.addRow("a", new double[] {1, 1e300, 3}, 1L));
        assertTrue(e.getMessage().contains("vector element 1 (1.0E300) is outside the float32 range"), e.getMessage());
        assertEquals(0, t.rowCount());
    }

    @Test
    void aVectorColumnNeedsItsDimensionAndOnlyAVectorTakesOne() {
        InvalidDataException e = assertThrows(InvalidDataException.class, () -> TableSchema.newBuilder("emb")
                .addField("v", DataType.Vector).addTimestamp("ts", DataType.TimestampMillisecond).build());
        assertEquals("v", e.column());
        assertTrue(e.getMessage().contains("needs its dimension"), e.getMessage());
        e = assertThrows(InvalidDataException.class, () -> TableSchema.newBuilder("emb")
                .addColumn("v", SemanticType.Field, DataType.Binary, new VectorType(3))
                .addTimestamp("ts", DataType.TimestampMillisecond).build());
        assertTrue(e.getMessage().contains("only applies to Vector"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new VectorType(-1));
    }
}
