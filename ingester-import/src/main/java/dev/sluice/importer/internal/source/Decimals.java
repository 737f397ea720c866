package dev.sluice.importer.internal.source;

import com.fasterxml.jackson.core.io.NumberInput;

/** Decimal text to {@code double}, the hot conversion of numeric CSV columns. */
public final class Decimals {
    private Decimals() {
    }

    /**
     * Parses text as {@link Double#parseDouble} does (the same syntax and the same, correctly rounded, value), with
     * jackson-core's fast parser (FastDoubleParser), several times quicker than the JDK's on typical decimals.
     * Text the fast parser refuses goes to the JDK's, so what is accepted and refused stays the JDK's.
     *
     * @param s the text
     * @return the value
     * @throws NumberFormatException when the text is not a number
     */
    public static double parseDouble(String s) {
        try {
            return NumberInput.parseDouble(s, true);
        } catch (NumberFormatException e) {
            return Double.parseDouble(s);
        }
    }

    /** Powers of ten that a double holds exactly. */
    private static final double[] EXACT_POWERS = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22};

    /** The largest integer below which every integer is a double. */
    private static final long EXACT_INTEGERS = 1L << 53;

    /**
     * Parses a range of ASCII bytes as {@link #parseDouble(String)} parses the same text. A plain decimal (an optional
     * minus sign, digits with at most one point, an optional exponent) whose digits make an integer below 2^53 and
     * whose power of ten is at most 22 either way is one exact multiplication or division of two exact doubles, so its
     * one rounding is the correct one; anything else is read as text.
     *
     * @param b the bytes
     * @param offset where the text starts
     * @param length its length
     * @return the value
     * @throws NumberFormatException when the text is not a number
     */
    public static double parseDouble(byte[] b, int offset, int length) {
        int end = offset + length;
        int i = offset;
        boolean negative = i < end && b[i] == '-';
        if (negative) {
            i++;
        }
        long m = 0;
        int digits = 0;
        int scale = 0;
        boolean point = false;
        for (; i < end; i++) {
            int c = b[i];
            int d = c - '0';
            if (d >= 0 && d <= 9) {
                m = m * 10 + d;
                if (m >= EXACT_INTEGERS) {
                    return parseDouble(ascii(b, offset, length));
                }
                digits++;
                if (point) {
                    scale--;
                }
            } else if (c == '.' && !point) {
                point = true;
            } else {
                break;
            }
        }
        if (digits == 0) {
            return parseDouble(ascii(b, offset, length));
        }
        if (i < end) {
            if (b[i] != 'e' && b[i] != 'E' || ++i == end) {
                return parseDouble(ascii(b, offset, length));
            }
            boolean negativeExponent = b[i] == '-';
            if (negativeExponent || b[i] == '+') {
                i++;
            }
            int e = 0;
            int expDigits = 0;
            for (; i < end; i++) {
                int d = b[i] - '0';
                if (d < 0 || d > 9 || ++expDigits > 4) {
                    return parseDouble(ascii(b, offset, length));
                }
                e = e * 10 + d;
            }
            if (expDigits == 0) {
                return parseDouble(ascii(b, offset, length));
            }
            scale += negativeExponent ? -e : e;
        }
        double v;
        if (m == 0) {
            v = 0;
        } else if (scale >= 0 && scale < EXACT_POWERS.length) {
            v = m * EXACT_POWERS[scale];
        } else if (scale < 0 && -scale < EXACT_POWERS.length) {
            v = m / EXACT_POWERS[-scale];
        } else {
            return parseDouble(ascii(b, offset, length));
        }
        return negative ? -v : v;
    }

    /** The bytes as text: UTF-8 (a number is ASCII; other bytes only make the text the JDK refuses). */
    private static String ascii(byte[] b, int offset, int length) {
        return new String(b, offset, length, java.nio.charset.StandardCharsets.UTF_8);
    }
}
