package dev.sluice.importer.internal.source;

/**
 * A CSV field's text: a range of its record's characters, made a {@code String} only when asked for one, so that
 * numbers are parsed from the characters themselves.
 */
public final class FieldText implements CharSequence {
    private char[] chars;
    private int start;
    private int end;
    private String string;

    /**
     * Points at a field's characters (not copied).
     *
     * @param chars the characters
     * @param start the first
     * @param end one past the last
     */
    public FieldText(char[] chars, int start, int end) {
        this.chars = chars;
        this.start = start;
        this.end = end;
    }

    /**
     * Points this value at another field (a source reusing its value objects once they are read at once).
     *
     * @return this
     */
    public FieldText at(char[] chars, int start, int end) {
        this.chars = chars;
        this.start = start;
        this.end = end;
        this.string = null;
        return this;
    }

    @Override
    public int length() {
        return end - start;
    }

    @Override
    public char charAt(int index) {
        return chars[start + index];
    }

    @Override
    public CharSequence subSequence(int from, int to) {
        return toString().subSequence(from, to);
    }

    @Override
    public String toString() {
        String s = string;
        if (s == null) {
            s = new String(chars, start, end - start);
            string = s;
        }
        return s;
    }

    /**
     * Reads a plain decimal integer (an optional minus sign and at most 18 digits) without making a String.
     *
     * @return the number, or {@code Long.MIN_VALUE} when the text is anything else (a sign, spaces, more digits...),
     *     which the caller then reads as a String
     */
    public long plainLong() {
        int i = start;
        boolean negative = i < end && chars[i] == '-';
        if (negative) {
            i++;
        }
        int digits = end - i;
        if (digits < 1 || digits > 18) {
            return Long.MIN_VALUE;
        }
        long n = 0;
        for (; i < end; i++) {
            int d = chars[i] - '0';
            if (d < 0 || d > 9) {
                return Long.MIN_VALUE;
            }
            n = n * 10 + d;
        }
        return negative ? -n : n;
    }

    /**
     * Reads a number as {@link Decimals#parseDouble(String)} does, from the characters when the fast parser takes
     * them.
     *
     * @return the number
     * @throws NumberFormatException when it is none
     */
    public double toDouble() {
        return Decimals.parseDouble(chars, start, end - start);
    }
}
