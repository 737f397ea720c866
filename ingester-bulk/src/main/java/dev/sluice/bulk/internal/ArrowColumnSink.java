package dev.sluice.bulk.internal;

import dev.sluice.internal.model.ColumnSink;
import dev.sluice.internal.model.Utf8Cache;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * Writes converted values straight into an Arrow vector's buffers. Fixed-width types are written by width
 * (1, 2, 4, 8 or 16 bytes), so one class serves every integer, float, date, time, timestamp and decimal type.
 */
public final class ArrowColumnSink implements ColumnSink {
    private final FieldVector vector;
    private final BaseFixedWidthVector fixed;
    private final BaseVariableWidthVector variable;
    private final BitVector bits;
    private final int width;
    private final boolean float32;
    private Utf8Cache text;

    /**
     * Wraps a vector.
     *
     * @param vector the vector to fill
     */
    public ArrowColumnSink(FieldVector vector) {
        this.vector = vector;
        this.bits = vector instanceof BitVector ? (BitVector) vector : null;
        this.fixed = bits == null && vector instanceof BaseFixedWidthVector ? (BaseFixedWidthVector) vector : null;
        this.variable = vector instanceof BaseVariableWidthVector ? (BaseVariableWidthVector) vector : null;
        this.width = fixed != null ? fixed.getTypeWidth() : 0;
        this.float32 = vector instanceof org.apache.arrow.vector.Float4Vector;
    }

    private ArrowBuf slot(int row) {
        while (row >= fixed.getValueCapacity()) {
            fixed.reAlloc();
        }
        BitVectorHelper.setBit(fixed.getValidityBuffer(), row);
        return fixed.getDataBuffer();
    }

    @Override
    public void setNull(int row) {
        if (variable != null) {
            variable.setNull(row);
        } else {
            ((BaseFixedWidthVector) vector).setNull(row);
        }
    }

    @Override
    public void setLong(int row, long value) {
        ArrowBuf data = slot(row);
        long at = (long) row * width;
        switch (width) {
            case 1: data.setByte(at, (byte) value); break;
            case 2: data.setShort(at, (short) value); break;
            case 4: data.setInt(at, (int) value); break;
            default: data.setLong(at, value);
        }
    }

    @Override
    public void setDouble(int row, double value) {
        ArrowBuf data = slot(row);
        if (float32) {
            data.setFloat((long) row * 4, (float) value);
        } else {
            data.setDouble((long) row * 8, value);
        }
    }

    @Override
    public void setBool(int row, boolean value) {
        bits.setSafe(row, value ? 1 : 0);
    }

    @Override
    public void setText(int row, String value) {
        if (text == null) {
            text = new Utf8Cache();
        }
        variable.setSafe(row, text.encode(value));
    }

    @Override
    public void setUtf8(int row, byte[] value) {
        variable.setSafe(row, value);
    }

    @Override
    public void setBytes(int row, byte[] value) {
        variable.setSafe(row, value);
    }

    @Override
    public void setDecimal(int row, long hi, long lo) {
        ArrowBuf data = slot(row);
        data.setLong((long) row * 16, lo);
        data.setLong((long) row * 16 + 8, hi);
    }

    /**
     * Returns the vector.
     *
     * @return the vector
     */
    public FieldVector vector() {
        return vector;
    }
}
