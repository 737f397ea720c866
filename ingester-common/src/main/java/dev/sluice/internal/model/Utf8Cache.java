package dev.sluice.internal.model;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Encodes text to UTF-8, reusing the bytes when the very same {@code String} instance comes again (tag values,
 * enum-like fields and constants repeat a lot in time series, usually from the caller's own pools), so a column
 * reused batch after batch encodes each distinct instance once instead of once per row.
 *
 * <p>An identity hash table with linear probing, at most half full. It starts small (one slot per 8 rows of the
 * column, at least 16), so a table built once and dropped pays little for it. When it overflows (more distinct
 * instances than half its slots, or more than {@link #MAX_BYTES} of text) it is emptied; and when the column
 * starts a new fill ({@link #nextFill()}) after such an overflow, it grows fourfold, up to {@link #MAX_SLOTS}:
 * a reused table or batch converges on a cache that holds its working set (1,000 host names take four fills).
 * Values that never repeat keep missing, at the cost of one probe each.
 */
public final class Utf8Cache {
    private static final int MIN_SLOTS = 16;
    /** The most slots the table grows to (half of them usable): 4,096 distinct values per column. */
    static final int MAX_SLOTS = 8_192;
    /** The most text bytes kept: a column of long, rarely repeating values does not pin much heap. */
    static final long MAX_BYTES = 1L << 20;
    private String[] keys;
    private byte[][] values;
    private int mask;
    private int size;
    private long bytes;
    private boolean overflowed;

    /**
     * Creates a cache for a column of about {@code rows} rows.
     *
     * @param rows the rows the column is expected to hold (one slot per 8 rows to start with, within the bounds
     *     above)
     */
    public Utf8Cache(int rows) {
        allocate(Integer.highestOneBit(Math.max(MIN_SLOTS, Math.min(MAX_SLOTS, rows / 8))));
    }

    private void allocate(int slots) {
        keys = new String[slots];
        values = new byte[slots][];
        mask = slots - 1;
        size = 0;
        bytes = 0;
    }

    /**
     * Returns the text's UTF-8 bytes (shared with earlier rows when the instance repeats: never modify them).
     *
     * @param text the text
     * @return its UTF-8 encoding
     */
    public byte[] encode(String text) {
        int slot = System.identityHashCode(text) & mask;
        for (String k; (k = keys[slot]) != null; slot = (slot + 1) & mask) {
            if (k == text) {
                return values[slot];
            }
        }
        return miss(text, slot);
    }

    /** Encodes and keeps a text not in the table; apart from {@link #encode} so that the hit path stays small. */
    private byte[] miss(String text, int slot) {
        byte[] encoded = text.getBytes(StandardCharsets.UTF_8);
        if (size >= (mask + 1) >>> 1 || bytes + encoded.length > MAX_BYTES) {
            overflowed = true;
            Arrays.fill(keys, null);
            Arrays.fill(values, null);
            size = 0;
            bytes = 0;
            slot = System.identityHashCode(text) & mask;
        }
        keys[slot] = text;
        values[slot] = encoded;
        size++;
        bytes += encoded.length;
        return encoded;
    }

    /**
     * Tells the cache its column starts over from row 0: if the last fill overflowed it, it grows (empty) for the
     * next one. Cheap enough to call on every row 0.
     */
    public void nextFill() {
        if (overflowed) {
            overflowed = false;
            if (mask + 1 < MAX_SLOTS) {
                allocate(Math.min(MAX_SLOTS, (mask + 1) << 2));
            }
        }
    }

    /**
     * Returns the number of slots (for tests).
     *
     * @return the slot count
     */
    int slots() {
        return mask + 1;
    }
}
