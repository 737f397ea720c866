package dev.sluice.importer.internal.source;

import dev.sluice.data.RowAppender;
import java.nio.charset.StandardCharsets;

/**
 * A CSV field's text: a range of its record's UTF-8 bytes, made a {@code String} only when asked for one, so that
 * numbers are parsed from the bytes themselves and text goes to a String column as the file's bytes. Bytes that are
 * not UTF-8 read as U+FFFD, as a decoder of the whole file would read them.
 */
public final class FieldText implements CharSequence {
    private byte[] bytes;
    private int start;
    private int end;
    private String string;

    /**
     * Points at a field's bytes (not copied).
     *
     * @param bytes the bytes
     * @param start the first
     * @param end one past the last
     */
    public FieldText(byte[] bytes, int start, int end) {
        this.bytes = bytes;
        this.start = start;
        this.end = end;
    }

    /**
     * Points this value at another field (a source reusing its value objects once they are read at once).
     *
     * @param bytes the bytes
     * @param start the first
     * @param end one past the last
     * @return this
     */
    public FieldText at(byte[] bytes, int start, int end) {
        this.bytes = bytes;
        this.start = start;
        this.end = end;
        this.string = null;
        return this;
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
            s = new String(bytes, start, end - start, StandardCharsets.UTF_8);
            string = s;
        }
        return s;
    }

    /**
     * Sets a String column to this text: its bytes as they are when they are ASCII, else the decoded text (with
     * U+FFFD for bytes that are not UTF-8).
     *
     * @param a the row appender
     * @param column the column index
     */
    public void setText(RowAppender a, int column) {
        byte[] b = bytes;
        int seen = 0;
        for (int i = start; i < end; i++) {
            seen |= b[i];
        }
        if (seen < 0) { // a byte of 0x80 or more: the decoded text, as every other non-ASCII value is stored
            a.setString(column, toString());
        } else if (start == 0 && end == b.length) {
            a.setUtf8(column, b.clone(), 0, end); // a whole array may be kept: give one that is not reused
        } else {
            a.setUtf8(column, b, start, end - start);
        }
    }

    /**
     * Reads a plain decimal integer (an optional minus sign and at most 18 digits) without making a String.
     *
     * @return the number, or {@code Long.MIN_VALUE} when the text is anything else (a sign, spaces, more digits...),
     *     which the caller then reads as a String
     */
    public long plainLong() {
        byte[] b = bytes;
        int i = start;
        boolean negative = i < end && b[i] == '-';
        if (negative) {
            i++;
        }
        int digits = end - i;
        if (digits < 1 || digits > 18) {
            return Long.MIN_VALUE;
        }
        long n = 0;
        for (; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return Long.MIN_VALUE;
            }
            n = n * 10 + d;
        }
        return negative ? -n : n;
    }

    /**
     * Reads a number as {@link Decimals#parseDouble(String)} does, from the bytes when they are a plain decimal.
     *
     * @return the number
     * @throws NumberFormatException when it is none
     */
    public double toDouble() {
        return Decimals.parseDouble(bytes, start, end - start);
    }
}
