package dev.sluice.internal.model;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Checks that bytes are well-formed UTF-8 (RFC 3629): no overlong forms, no encoded surrogates, nothing above
 * U+10FFFF, no sequence cut short. ASCII text and ASCII runs are checked eight bytes at a time.
 */
public final class Utf8 {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;

    private Utf8() {
    }

    /**
     * Finds the first byte that is not part of a well-formed UTF-8 sequence.
     *
     * @param b the bytes
     * @param offset where the text starts
     * @param length the text's length in bytes
     * @return the index (from {@code offset}, relative to the text's start) of the first malformed sequence, or -1
     *     when the text is well-formed
     */
    public static int malformedAt(byte[] b, int offset, int length) {
        if (ascii(b, offset, length)) {
            return -1;
        }
        int i = offset;
        int end = offset + length;
        while (i < end) {
            if (end - i >= 8 && ((long) LONGS.get(b, i) & HIGH_BITS) == 0) {
                i += 8;
                continue;
            }
            int lead = b[i] & 0xFF;
            if (lead < 0x80) {
                i++;
                continue;
            }
            int n = sequence(b, i, end, lead);
            if (n < 0) {
                return i - offset;
            }
            i += n;
        }
        return -1;
    }

    /**
     * Tells whether every byte is below 0x80, the common case, eight bytes at a time: the last eight bytes of the
     * text as one step (overlapping the step before), and text shorter than eight bytes without a branch per byte.
     */
    private static boolean ascii(byte[] b, int offset, int length) {
        int end = offset + length;
        if (length < 8) {
            int any = 0;
            for (int i = offset; i < end; i++) {
                any |= b[i];
            }
            return any >= 0;
        }
        for (int i = offset; i < end - 8; i += 8) {
            if (((long) LONGS.get(b, i) & HIGH_BITS) != 0) {
                return false;
            }
        }
        return ((long) LONGS.get(b, end - 8) & HIGH_BITS) == 0;
    }

    /** The length of the multi-byte sequence at {@code i}, or -1 when it is malformed. */
    private static int sequence(byte[] b, int i, int end, int lead) {
        if (lead >= 0xC2 && lead <= 0xDF) {
            return i + 1 < end && continuation(b[i + 1]) ? 2 : -1;
        }
        if (lead >= 0xE0 && lead <= 0xEF) {
            if (i + 2 >= end) {
                return -1;
            }
            int second = b[i + 1] & 0xFF;
            // E0 needs A0..BF (no overlong form); ED needs 80..9F (no surrogates D800..DFFF)
            int low = lead == 0xE0 ? 0xA0 : 0x80;
            int high = lead == 0xED ? 0x9F : 0xBF;
            return second >= low && second <= high && continuation(b[i + 2]) ? 3 : -1;
        }
        if (lead >= 0xF0 && lead <= 0xF4) {
            if (i + 3 >= end) {
                return -1;
            }
            int second = b[i + 1] & 0xFF;
            // F0 needs 90..BF (no overlong form); F4 needs 80..8F (nothing above U+10FFFF)
            int low = lead == 0xF0 ? 0x90 : 0x80;
            int high = lead == 0xF4 ? 0x8F : 0xBF;
            return second >= low && second <= high && continuation(b[i + 2]) && continuation(b[i + 3]) ? 4 : -1;
        }
        return -1; // a continuation byte, C0/C1 (overlong), or F5..FF
    }

    private static boolean continuation(byte x) {
        return (x & 0xC0) == 0x80;
    }
}
