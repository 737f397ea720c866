package dev.sluice.internal.model;

import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable column held in plain Java arrays: primitives for numbers, byte arrays for binary, and a null bitmap.
 * Only the arrays its type needs are allocated.
 *
 * <p>Each text or binary row is a range of a byte array: its array, offset and length. Short text (tags, mostly)
 * is a whole array from the column's {@link Utf8Cache}, shared by the rows that repeat the same {@code String}.
 * Text of {@value #LONG_TEXT} characters or more is encoded into the column's {@link TextPages}, one value after
 * another (all-ASCII text through {@link AsciiText}'s scratch, with no array per value), so the caller's string
 * can die young and the collector never copies the table's text. Binary values keep the caller's array.
 */
public final class ArrayColumn implements ColumnVector, ColumnSink {
    private final DataType type;
    private final int scale;
    private long[] nulls;
    private long[] longs;
    private long[] highs;
    private double[] doubles;
    private boolean[] bools;
    private byte[][] refs;
    /** Where each text or binary row's bytes start in its array. */
    private int[] offsets;
    /** Each text or binary row's length in bytes, so that sizing a request reads this array and not every value. */
    private int[] lengths;
    private Utf8Cache text;
    private TextPages pages;
    /** The row whose value {@link #pages} took room for last, while that room is the last taken; else -1. */
    private int packedRow = -1;
    private int capacity;
    /** Text this long or longer is packed into the column's pages instead of going through its cache. */
    public static final int LONG_TEXT = 64;

    /**
     * Creates an empty column.
     *
     * @param type the column type
     * @param capacity the number of rows to make room for up front
     */
    public ArrayColumn(DataType type, int capacity) {
        this(type, capacity, 0);
    }

    /**
     * Creates an empty column whose decimals have the given scale.
     *
     * @param type the column type
     * @param capacity the number of rows to make room for up front
     * @param scale digits after the point of a Decimal128 column's values (ignored for other types)
     */
    public ArrayColumn(DataType type, int capacity, int scale) {
        this.type = type;
        this.scale = scale;
        this.capacity = Math.max(capacity, 1);
        this.nulls = new long[(this.capacity + 63) >>> 6];
        switch (type) {
            case Bool: bools = new boolean[this.capacity]; break;
            case Float32: case Float64: doubles = new double[this.capacity]; break;
            case String: case Json: case Binary: case Vector:
                refs = new byte[this.capacity][];
                offsets = new int[this.capacity];
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
            offsets = Arrays.copyOf(offsets, next);
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
        if (pages != null) {
            pages.restart();
            packedRow = -1;
        }
    }

    /**
     * Before a text row is written: when it is the row packed last (it failed or was cancelled and is being written
     * again at the same index, or its column is set twice), its room in the pages is given back, so rejected rows
     * do not grow the table.
     */
    private void replacing(int row) {
        if (row == packedRow) {
            pages.undoLast();
            packedRow = -1;
        }
    }

    private void present(int row) {
        nulls[row >>> 6] &= ~(1L << row);
    }

    @Override
    public void setNull(int row) {
        nulls[row >>> 6] |= 1L << row;
        if (refs != null) {
            replacing(row);
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
        int n = value.length();
        if (n >= LONG_TEXT) {
            AsciiText ascii = AsciiText.local();
            if (ascii.check(value)) {
                pack(row, ascii.bytes(), 0, n);
            } else {
                byte[] utf8 = value.getBytes(StandardCharsets.UTF_8); // dies young: its bytes are copied next
                pack(row, utf8, 0, utf8.length);
            }
            present(row);
            return;
        }
        if (text == null) {
            text = new Utf8Cache(capacity);
        }
        whole(row, text.encode(value));
    }

    /** Copies a long value into the column's pages. */
    private void pack(int row, byte[] src, int from, int length) {
        if (pages == null) {
            pages = new TextPages();
        }
        replacing(row);
        pages.reserve(length);
        packedRow = row;
        byte[] page = pages.array();
        int at = pages.offset();
        System.arraycopy(src, from, page, at, length);
        refs[row] = page;
        offsets[row] = at;
        lengths[row] = length;
    }

    private void whole(int row, byte[] value) {
        if (pages != null) {
            replacing(row);
        }
        refs[row] = value;
        offsets[row] = 0;
        lengths[row] = value.length;
        present(row);
    }

    /** Keeps a whole array as the row's value; a part of one (a row of another column) is copied into the pages. */
    @Override
    public void setUtf8(int row, byte[] utf8, int offset, int length) {
        if (offset == 0 && length == utf8.length) {
            whole(row, utf8);
        } else {
            pack(row, utf8, offset, length);
            present(row);
        }
    }

    @Override
    public void setBytes(int row, byte[] value) {
        whole(row, value);
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
        return new String(refs[row], offsets[row], lengths[row], StandardCharsets.UTF_8);
    }

    @Override
    public byte[] getBytes(int row) {
        byte[] a = refs[row];
        int from = offsets[row];
        int length = lengths[row];
        return from == 0 && length == a.length ? a : Arrays.copyOfRange(a, from, from + length);
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
    public void copyBytes(int row, byte[] dst, int at) {
        System.arraycopy(refs[row], offsets[row], dst, at, lengths[row]);
    }

    /**
     * Passes a text row's UTF-8 bytes on to another sink without copying them into an array of their own.
     *
     * @param row a row that is not null
     * @param to the destination sink
     * @param toRow the row index there
     */
    public void copyText(int row, ColumnSink to, int toRow) {
        to.setUtf8(toRow, refs[row], offsets[row], lengths[row]);
    }

    /**
     * Reads the high 64 bits of a Decimal128's unscaled value.
     *
     * @param row zero-based row index
     * @return the signed high half
     */
    public long getDecimalHigh(int row) {
        return highs[row];
    }

    /**
     * Reads the low 64 bits of a Decimal128's unscaled value.
     *
     * @param row zero-based row index
     * @return the low half (as a signed long)
     */
    public long getDecimalLow(int row) {
        return longs[row];
    }

    @Override
    public java.math.BigDecimal getDecimal(int row) {
        java.math.BigInteger unscaled = java.math.BigInteger.valueOf(highs[row]).shiftLeft(64)
                .or(java.math.BigInteger.valueOf(longs[row]).and(LOW_64));
        return new java.math.BigDecimal(unscaled, scale);
    }

    private static final java.math.BigInteger LOW_64 = java.math.BigInteger.ONE.shiftLeft(64).subtract(java.math.BigInteger.ONE);
}
