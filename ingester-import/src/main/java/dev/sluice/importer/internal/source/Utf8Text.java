package dev.sluice.importer.internal.source;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.parquet.io.api.Binary;

/**
 * A string value still in its file's UTF-8 bytes (a Parquet page's), handed to a String column as bytes and decoded
 * only when text is asked for (with U+FFFD for bytes that are not UTF-8: such a value is refused when it is stored).
 * Once a source's values are read at once, one per column is re-pointed at each value.
 */
public final class Utf8Text implements CharSequence {
    private byte[] bytes;
    private int offset;
    private int length;
    private String string;

    /**
     * Points this value at a Parquet value's bytes, without copying them when they lie in a heap array.
     *
     * @param b the value
     * @return this
     */
    Utf8Text at(Binary b) {
        ByteBuffer bb = b.toByteBuffer();
        if (bb.hasArray()) {
            bytes = bb.array();
            offset = bb.arrayOffset() + bb.position();
            length = bb.remaining();
        } else {
            bytes = b.getBytes();
            offset = 0;
            length = bytes.length;
        }
        string = null;
        return this;
    }

    /** @return the array holding the text's bytes (not copied) */
    public byte[] bytes() {
        return bytes;
    }

    /** @return where the text starts in {@link #bytes()} */
    public int offset() {
        return offset;
    }

    /** @return the text's length in bytes */
    public int byteLength() {
        return length;
    }

    @Override
    public int length() {
        return toString().length();
    }

    @Override
    public char charAt(int index) {
        return toString().charAt(index);
    }

    @Override
    public CharSequence subSequence(int from, int to) {
        return toString().subSequence(from, to);
    }

    @Override
    public String toString() {
        String s = string;
        if (s == null) {
            s = new String(bytes, offset, length, StandardCharsets.UTF_8);
            string = s;
        }
        return s;
    }
}
