package dev.sluice.internal.model;

import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable column held in plain Java arrays: primitives for numbers, byte arrays for binary, and a null bitmap.
 * Only the arrays its type needs are allocated.
 *
 * <p>Text is held one of two ways per row: a value of {@value #LONG_TEXT} to {@value AsciiText#MAX_CHARS}
 * characters that is all ASCII is kept as the caller's {@code String} (its characters are its UTF-8 bytes, so
 * nothing is encoded or copied until {@link #copyBytes} copies it straight into a request); any other value is
 * kept as UTF-8 bytes from the column's {@link Utf8Cache}, which short values (tags) repeat through.
 */
public final class ArrayColumn implements ColumnVector, ColumnSink {
    private final DataType type;
    private long[] nulls;
    private long[] longs;
    private long[] highs;
    private double[] doubles;
    private boolean[] bools;
    private Object[] refs;
    /** Each text or binary row's length in bytes, so that sizing a request reads this array and not every value. */
    private int[] lengths;
    private Utf8Cache text;
    private int capacity;
    /** Text this long or longer is checked for ASCII and, when it is, kept as the caller's {@code String}. */
    public static final int LONG_TEXT = 64;

    /**
     * Creates an empty column.
     *
     * @param type the column type
     * @param capacity the number of rows to make room for up front
     */
    public ArrayColumn(DataType type, int capacity) {
        this.type = type;
        this.capacity = Math.max(capacity, 1);
        this.nulls = new long[(this.capacity + 63) >>> 6];
        switch (type) {
            case Bool: bools = new boolean[this.capacity]; break;
            case Float32: case Float64: doubles = new double[this.capacity]; break;
            case String: case Json: case Binary: case Vector:
                refs = new Object[this.capacity];
                lengths = new int[this.capacity];
                break;
            case Decimal128: longs = new long[this.capacity]; highs = new long[this.capacity]; break;
            default: longs = new long[this.capacity];
        }
    }

    /**
     * Makes room for a row at the given index.
     *
     * @param row the index about to be written
     */
    public void ensureCapacity(int row) {
        if (row < capacity) {
            return;
        }
        int next = Math.max(row + 1, capacity + (capacity >> 1) + 16);
        if (bools != null) {
            bools = Arrays.copyOf(bools, next);
        }
        if (doubles != null) {
            doubles = Arrays.copyOf(doubles, next);
        }
        if (refs != null) {
            refs = Arrays.copyOf(refs, next);
            lengths = Arrays.copyOf(lengths, next);
        }
        if (longs != null) {
            longs = Arrays.copyOf(longs, next);
        }
        if (highs != null) {
            highs = Arrays.copyOf(highs, next);
        }
        nulls = Arrays.copyOf(nulls, (next + 63) >>> 6);
        capacity = next;
    }

    /**
     * Tells the column its rows are about to be written again from row 0 (the table was reset), so its text
     * cache can adapt to what the last fill saw (see {@link Utf8Cache#nextFill()}). Not called per row: a branch
     * taken once per batch inside the per-row path costs a deoptimization of the whole compiled row loop.
     */
    public void refill() {
        if (text != null) {
            text.nextFill();
        }
    }

    private void present(int row) {
        nulls[row >>> 6] &= ~(1L << row);
    }

    @Override
    public void setNull(int row) {
        nulls[row >>> 6] |= 1L << row;
        if (refs != null) {
            refs[row] = null;
        }
    }

    @Override
    public void setLong(int row, long value) {
        longs[row] = value;
        present(row);
    }

    @Override
    public void setDouble(int row, double value) {
        doubles[row] = value;
        present(row);
    }

    @Override
    public void setBool(int row, boolean value) {
        bools[row] = value;
        present(row);
    }

    @Override
    public void setText(int row, String value) {
        if (value.length() >= LONG_TEXT) {
            if (AsciiText.local().check(value)) {
                refs[row] = value;
                lengths[row] = value.length();
                present(row);
                return;
            }
        }
        if (text == null) {
            text = new Utf8Cache(capacity);
        }
        byte[] utf8 = text.encode(value);
        refs[row] = utf8;
        lengths[row] = utf8.length;
        present(row);
    }

    @Override
    public void setUtf8(int row, byte[] value) {
        refs[row] = value;
        lengths[row] = value.length;
        present(row);
    }

    @Override
    public void setBytes(int row, byte[] value) {
        refs[row] = value;
        lengths[row] = value.length;
        present(row);
    }

    @Override
    public void setDecimal(int row, long hi, long lo) {
        highs[row] = hi;
        longs[row] = lo;
        present(row);
    }

    @Override
    public DataType dataType() {
        return type;
    }

    @Override
    public boolean isNull(int row) {
        return (nulls[row >>> 6] & (1L << row)) != 0;
    }

    /**
     * Tells whether any of the rows {@code [from, to)} is null, a bitmap word at a time, so that readers of a
     * column without nulls (the common case) can skip the per-row check.
     *
     * @param from the first row
     * @param to one past the last row
     * @return true when at least one of those rows is null
     */
    public boolean anyNull(int from, int to) {
        if (from >= to) {
            return false;
        }
        int first = from >>> 6;
        int last = (to - 1) >>> 6;
        for (int w = first; w <= last; w++) {
            long bits = nulls[w];
            if (w == first) {
                bits &= -1L << from;
            }
            if (w == last) {
                bits &= -1L >>> (63 - ((to - 1) & 63));
            }
            if (bits != 0) {
                return true;
            }
        }
        return false;
    }

    @Override
    public long getLong(int row) {
        return longs[row];
    }

    @Override
    public double getDouble(int row) {
        return doubles[row];
    }

    @Override
    public boolean getBool(int row) {
        return bools[row];
    }

    @Override
    public String getString(int row) {
        Object v = refs[row];
        return v instanceof String s ? s : new String((byte[]) v, StandardCharsets.UTF_8);
    }

    @Override
    public byte[] getBytes(int row) {
        Object v = refs[row];
        return v instanceof String s ? s.getBytes(StandardCharsets.US_ASCII) : (byte[]) v;
    }

    /**
     * Returns the length in bytes of a text or binary row's value (its UTF-8 length for text), without
     * encoding anything.
     *
     * @param row a row that is not null
     * @return the byte length
     */
    public int byteLength(int row) {
        return lengths[row];
    }

    /**
     * Copies a text or binary row's bytes (UTF-8 for text), {@link #byteLength} of them, into an array.
     *
     * @param row a row that is not null
     * @param dst the destination
     * @param at where in it
     */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): exact for ASCII, and only ASCII is kept
    public void copyBytes(int row, byte[] dst, int at) {
        Object v = refs[row];
        if (v instanceof String s) {
            s.getBytes(0, s.length(), dst, at);
        } else {
            byte[] b = (byte[]) v;
            System.arraycopy(b, 0, dst, at, b.length);
        }
    }

    /**
     * Passes a text row's value on to another sink the cheapest way: the caller's {@code String} when the
     * column kept it, else the UTF-8 bytes.
     *
     * @param row a row that is not null
     * @param to the destination sink
     * @param toRow the row index there
     */
    public void copyText(int row, ColumnSink to, int toRow) {
        Object v = refs[row];
        if (v instanceof String s) {
            to.setText(toRow, s);
        } else {
            to.setUtf8(toRow, (byte[]) v);
        }
    }

    @Override
    public long getDecimalHigh(int row) {
        return highs[row];
    }

    @Override
    public long getDecimalLow(int row) {
        return longs[row];
    }
}
