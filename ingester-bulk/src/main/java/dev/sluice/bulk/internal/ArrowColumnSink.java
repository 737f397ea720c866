package dev.sluice.bulk.internal;

import dev.sluice.internal.model.ColumnSink;
import dev.sluice.internal.model.AsciiText;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Writes converted values straight into an Arrow vector's buffers. Fixed-width types are written by width
 * (1, 2, 4, 8 or 16 bytes), so one class serves every integer, float, date, time, timestamp and decimal type.
 *
 * <p>Values are stored with plain memory writes at the buffers' addresses, which this class reads once and keeps
 * with the number of rows they have room for: a write checks its row against that number only, and reads the
 * buffers afresh (growing them) when the row is beyond it; Arrow's per-call checks (reference count, bounds, hole
 * filling) cost more than the store itself. A text value's bytes are checked against the text buffer's kept size,
 * which this class updates when it grows the buffer. Variable-width columns keep their offsets themselves: a row's
 * start is the offset the previous row ended at, a null row repeats it, and a row written again (after a rejected
 * row) starts at the same place; the vector learns its last row from {@link #finish(int)}, not from every value
 * (otherwise its {@code setValueCount} would fill the offsets of rows it thinks empty). Every write to the vector
 * must go through this sink, and whoever allocates, clears or closes the vector's buffers otherwise calls
 * {@link #unbind()} before the next write.
 *
 * <p>Validity bits are written per value only once the column has held a null: until then a value sets no bit
 * (a read, an OR and a store per value, a tenth of a metrics row's cost), and {@link #finish(int)} sets the
 * bits of all the rows at once when the batch is complete. The first null sets the bits of the rows before it,
 * and from then on every value sets or clears its own, so a row written again after a rejected one (null over a
 * value, or a value over a null) leaves the bit its last write gives. The vector's validity bits must be zero
 * when the sink starts a column: fresh buffers are zeroed by Arrow, and whoever clears them calls
 * {@link #unbind()}, which starts the column anew.
 */
public final class ArrowColumnSink implements ColumnSink {
    private final FieldVector vector;
    private final BaseFixedWidthVector fixed;
    private final BaseVariableWidthVector variable;
    private final BitVector bits;
    private final int width;
    private final boolean float32;
    /** Text this long or longer is copied through the thread's {@link AsciiText}; shorter text char by char. */
    static final int CACHED_MIN_CHARS = 64;
    /** Values this long or shorter are moved 8 bytes at a time when the array and the text buffer have room. */
    static final int SHORT_BYTES = 16;
    /** Where short ASCII text is copied before it goes into Arrow memory. */
    private final byte[] ascii = new byte[CACHED_MIN_CHARS];
    /**
     * The last short text stored through {@link #setText}, the very object (a {@code String} never changes, so
     * the same object has the same bytes), or null. Its {@link #lastLength} bytes are those the text buffer holds
     * from {@link #lastStart} when {@link #lastInBuffer} (ASCII of at most {@link #SHORT_BYTES} characters, as
     * stored for an earlier row of this batch), else the first ones of {@link #lastBytes}.
     */
    private String last = "";
    private byte[] lastBytes = ascii;
    private int lastLength;
    private boolean lastInBuffer;
    private long lastStart;
    /** True once {@link #lastLow} and {@link #lastHigh} hold the first 16 bytes from {@link #lastStart}. */
    private boolean lastInWords;
    private long lastLow;
    private long lastHigh;

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

    /**
     * Rows the cached addresses below have room for (their validity bits, and their fixed-width values or text
     * offsets); 0 until {@link #bind} reads them, and again after {@link #unbind()}.
     */
    private int rows;
    /** Where the validity bits start. */
    private long validityAddress;
    /** Where fixed-width values, or text bytes, start. */
    private long dataAddress;
    /**
     * True while no null has been written since the column started: values set no validity bit, and
     * {@link #finish(int)} sets them all.
     */
    private boolean noNull = true;
    /** Where text offsets start (variable-width only). */
    private long offsetAddress;
    /** The text buffer's size in bytes (variable-width only). */
    private long dataCapacity;
    /**
     * The last start in the text buffer with room for {@link #SHORT_BYTES} bytes from it (and below 2 GiB), kept
     * with {@link #dataCapacity}: short text from a start up to here is moved 8 bytes at a time.
     */
    private long shortLimit = -SHORT_BYTES;

    /**
     * Forgets the buffers' addresses: the next write reads them afresh, and starts a column with no null (its
     * validity bits all zero). The owner calls this whenever it changes the vector's buffers itself (allocating,
     * clearing or closing the vector, or zeroing its validity bits and offsets to refill it).
     */
    public void unbind() {
        noNull = true;
        if (lastInBuffer) {
            last = null; // its bytes lie in a buffer that is refilled or gone
        }
        rows = 0;
        validityAddress = 0;
        dataAddress = 0;
        offsetAddress = 0;
        setDataCapacity(0);
    }

    private void setDataCapacity(long capacity) {
        dataCapacity = capacity;
        shortLimit = Math.min(capacity, Integer.MAX_VALUE) - SHORT_BYTES;
    }

    /** Grows the vector until it has room for {@code row}, then reads its buffers' addresses and room. */
    private void bind(int row) {
        if (variable != null) {
            while (row >= variable.getValueCapacity()) {
                variable.reallocValidityAndOffsetBuffers();
            }
            ArrowBuf offsets = variable.getOffsetBuffer();
            ArrowBuf validity = variable.getValidityBuffer();
            ArrowBuf data = variable.getDataBuffer();
            offsetAddress = offsets.memoryAddress();
            validityAddress = validity.memoryAddress();
            dataAddress = data.memoryAddress();
            setDataCapacity(data.capacity());
            rows = (int) Math.min(offsets.capacity() / 4 - 1, validity.capacity() * 8);
        } else {
            while (row >= fixed.getValueCapacity()) {
                fixed.reAlloc();
            }
            ArrowBuf data = fixed.getDataBuffer();
            ArrowBuf validity = fixed.getValidityBuffer();
            dataAddress = data.memoryAddress();
            validityAddress = validity.memoryAddress();
            rows = (int) Math.min(data.capacity() / width, validity.capacity() * 8);
        }
    }

    /**
     * The address of a fixed-width value's slot, with its validity bit set once the column has held a null;
     * grows the vector when needed.
     */
    private long slot(int row) {
        if (row >= rows) {
            bind(row);
        }
        if (!noNull) {
            setValid(validityAddress, row, true);
        }
        return dataAddress + (long) row * width;
    }

    /**
     * Sets the validity bits the values have not set one by one: those of rows 0 to {@code count - 1} when the
     * column holds no null; for a variable-width column, also tells the vector that its rows end at
     * {@code count - 1}. Call it once the batch's rows are all written, before the vector is read or sent
     * (writing more rows afterwards is fine: call it again when they are done).
     *
     * @param count the rows the batch holds
     */
    public void finish(int count) {
        if (variable != null) {
            variable.setLastSet(count - 1);
        }
        if (noNull && bits == null && count > 0) {
            if (count > rows) {
                bind(count - 1);
            }
            setValidBefore(count);
        }
    }

    /** Sets the validity bits of rows 0 to {@code count - 1}; the buffer must have room for them. */
    private void setValidBefore(int count) {
        int whole = count >>> 3;
        if (whole > 0) {
            MemoryUtil.setMemory(validityAddress, whole, (byte) 0xFF);
        }
        int rest = count & 7;
        if (rest != 0) {
            long at = validityAddress + whole;
            MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) | ((1 << rest) - 1)));
        }
    }

    private static void setValid(long validity, int row, boolean valid) {
        long at = validity + (row >>> 3);
        byte b = MemoryUtil.getByte(at);
        int bit = 1 << (row & 7);
        MemoryUtil.putByte(at, (byte) (valid ? b | bit : b & ~bit));
    }

    private void setVariable(int row, byte[] value) {
        setVariable(row, value, 0, value.length);
    }

    private void setVariable(int row, byte[] value, int length) {
        setVariable(row, value, 0, length);
    }

    /** Stores {@code length} bytes of {@code value} from {@code offset} as the row's value. */
    private void setVariable(int row, byte[] value, int offset, int length) {
        if (row >= rows) {
            bind(row);
        }
        long offsetAt = offsetAddress + (long) row * 4;
        int start = MemoryUtil.getInt(offsetAt);
        long end = (long) start + length;
        if (end > Integer.MAX_VALUE) {
            throw new IllegalStateException("an Arrow batch column holds at most 2 GiB of bytes");
        }
        if (end > dataCapacity) {
            growData(row, end, dataCapacity);
            ArrowBuf data = variable.getDataBuffer();
            dataAddress = data.memoryAddress();
            setDataCapacity(data.capacity());
        }
        long to = dataAddress + start;
        if (length <= SHORT_BYTES && value.length - offset >= SHORT_BYTES && start + SHORT_BYTES <= dataCapacity) {
            // A short value (a tag, a name, a code) as two 8-byte moves, where the JDK's copy costs a call and
            // checks: the bytes past its end land in room the next values overwrite, and are never sent.
            MemoryUtil.putLong(to, MemoryUtil.getLong(value, offset));
            MemoryUtil.putLong(to + 8, MemoryUtil.getLong(value, offset + 8));
        } else {
            MemoryUtil.copyToMemory(value, offset, to, length);
        }
        MemoryUtil.putInt(offsetAt + 4, (int) end);
        if (!noNull) {
            setValid(validityAddress, row, true);
        }
    }

    /**
     * Grows the text buffer to what the whole batch will likely need: the bytes per row so far times the rows the
     * vector has room for, at most 16 times the current size per step. A batch that starts small then reaches its
     * size in two or three copies instead of one per doubling. When the projection does not fit the allocator's
     * limit, the buffer grows just enough for this row, as Arrow would.
     */
    private void growData(int row, long end, long capacity) {
        long projected = (long) Math.min((double) end / (row + 1) * variable.getValueCapacity() * 1.125,
                (double) Math.min(Integer.MAX_VALUE, capacity * 16));
        if (projected > end) {
            try {
                variable.reallocDataBuffer(projected);
                return;
            } catch (OutOfMemoryException e) {
                // fall through: ask only for what this row needs
            }
        }
        variable.reallocDataBuffer(end);
    }

    @Override
    public void setNull(int row) {
        if (bits != null) {
            bits.setNull(row);
            return;
        }
        if (row >= rows) {
            bind(row);
        }
        if (noNull) {
            // From now on every value sets its own bit; the rows before this one all hold values.
            setValidBefore(row);
            noNull = false;
        }
        if (variable != null) {
            long offsetAt = offsetAddress + (long) row * 4;
            MemoryUtil.putInt(offsetAt + 4, MemoryUtil.getInt(offsetAt));
        }
        setValid(validityAddress, row, false);
    }

    @Override
    public void setLong(int row, long value) {
        long at = slot(row);
        switch (width) {
            case 1: MemoryUtil.putByte(at, (byte) value); break;
            case 2: MemoryUtil.putShort(at, (short) value); break;
            case 4: MemoryUtil.putInt(at, (int) value); break;
            default: MemoryUtil.putLong(at, value);
        }
    }

    @Override
    public void setDouble(int row, double value) {
        long at = slot(row);
        if (float32) {
            MemoryUtil.putInt(at, Float.floatToRawIntBits((float) value));
        } else {
            MemoryUtil.putLong(at, Double.doubleToRawLongBits(value));
        }
    }

    @Override
    public void setBool(int row, boolean value) {
        bits.setSafe(row, value ? 1 : 0);
    }

    /**
     * Stores text as UTF-8. A short value that is the very {@code String} object this sink stored last (a tag
     * whose value stays the same from row to row, as a series' tags do) is copied with no encoding: from the row
     * of this batch that holds it when it is ASCII of at most {@link #SHORT_BYTES} characters, else from the
     * bytes kept for it. Other ASCII values of at most {@link #SHORT_BYTES} characters are written character by
     * character straight into the text buffer; longer short ASCII values are copied character by character into
     * a scratch array that this sink reuses, then into Arrow memory: no array per value. Short values with other
     * characters are encoded afresh. Only the last value is kept, compared by identity: looking values up in a map costs more
     * than encoding a short one. Values of {@link #CACHED_MIN_CHARS} characters or more that are all ASCII are
     * copied through {@link AsciiText}'s scratch array (no array per value either); other long values are
     * encoded afresh too (keeping them would only keep fresh log lines alive).
     */
    @Override
    public void setText(int row, String value) {
        if (value == last) {
            if (lastInBuffer) {
                setLastAgain(row);
            } else {
                setVariable(row, lastBytes, lastLength);
            }
        } else {
            setNewText(row, value);
        }
    }

    /**
     * Stores the last text again: two 8-byte stores when the buffer has room for 16 bytes from the row's start
     * (bytes past its end land in room the next values overwrite, and are never sent), of the 16 bytes read once,
     * at its first repeat, from where the text buffer holds it for an earlier row.
     */
    private void setLastAgain(int row) {
        if (row >= rows) {
            bind(row);
        }
        long offsetAt = offsetAddress + (long) row * 4;
        int start = MemoryUtil.getInt(offsetAt);
        int n = lastLength;
        if (start > shortLimit) {
            byte[] bytes = ascii;
            for (int i = 0; i < n; i++) {
                bytes[i] = MemoryUtil.getByte(dataAddress + lastStart + i);
            }
            setVariable(row, bytes, n); // grows the buffer; the last text stays where it was
            return;
        }
        if (!lastInWords) {
            long from = dataAddress + lastStart;
            lastLow = MemoryUtil.getLong(from);
            lastHigh = MemoryUtil.getLong(from + 8);
            lastInWords = true;
        }
        long to = dataAddress + start;
        MemoryUtil.putLong(to, lastLow);
        MemoryUtil.putLong(to + 8, lastHigh);
        endVariable(row, offsetAt, start + n);
    }

    /** Ends a row's text at {@code end}: the next row's start, and its validity. */
    private void endVariable(int row, long offsetAt, int end) {
        MemoryUtil.putInt(offsetAt + 4, end);
        if (!noNull) {
            setValid(validityAddress, row, true);
        }
    }

    /** Stores text that is not the last value kept (kept small, {@link #setText} is compiled into the row loop). */
    private void setNewText(int row, String value) {
        int n = value.length();
        if (n <= SHORT_BYTES) {
            if (row >= rows) {
                bind(row);
            }
            long offsetAt = offsetAddress + (long) row * 4;
            int start = MemoryUtil.getInt(offsetAt);
            if (start <= shortLimit) {
                // Straight into the text buffer, character by character; other text overwrites them below.
                long to = dataAddress + start;
                int seen = 0;
                for (int i = 0; i < n; i++) { // no branch per character: the check is made once, on all of them
                    char c = value.charAt(i);
                    seen |= c;
                    MemoryUtil.putByte(to + i, (byte) c);
                }
                if (seen < 0x80) {
                    last = value;
                    lastInBuffer = true;
                    lastInWords = false;
                    lastStart = start;
                    lastLength = n;
                    endVariable(row, offsetAt, start + n);
                    return;
                }
            }
        }
        lastInBuffer = false;
        if (n < CACHED_MIN_CHARS) {
            byte[] bytes = ascii;
            int seen = 0;
            for (int i = 0; i < n; i++) { // no branch per character: the check is made once, on all of them
                char c = value.charAt(i);
                seen |= c;
                bytes[i] = (byte) c;
            }
            if (seen >= 0x80) {
                bytes = value.getBytes(StandardCharsets.UTF_8);
                n = bytes.length;
            }
            last = value;
            lastBytes = bytes;
            lastLength = n;
            setVariable(row, bytes, n);
            return;
        }
        last = null; // this row's bytes may lie where the last text's were (a row written again)
        AsciiText longAscii = AsciiText.local();
        if (longAscii.check(value)) {
            setVariable(row, longAscii.bytes(), n);
        } else {
            // Not through the cache: long text (log lines) rarely repeats, and the cache would keep fresh lines alive.
            setVariable(row, value.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public void setUtf8(int row, byte[] utf8, int offset, int length) {
        forgetLastInBuffer();
        setVariable(row, utf8, offset, length);
    }

    @Override
    public void setBytes(int row, byte[] value) {
        forgetLastInBuffer();
        setVariable(row, value);
    }

    /** This row's bytes may lie where the last text's were (a row written again): that copy is no longer kept. */
    private void forgetLastInBuffer() {
        if (lastInBuffer) {
            last = null;
        }
    }

    @Override
    public void setDecimal(int row, long hi, long lo) {
        long at = slot(row);
        MemoryUtil.putLong(at, lo);
        MemoryUtil.putLong(at + 8, hi);
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
