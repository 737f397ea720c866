package dev.sluice.internal.model;

import java.nio.charset.StandardCharsets;

/**
 * Encodes text to UTF-8, reusing the bytes when the very same {@code String} instance comes again (tag values,
 * enum-like fields and constants repeat a lot in time series), so a column holds one copy per distinct instance
 * it saw recently. A direct-mapped cache per column, sized to the column (16 to 1,024 slots: a few hundred
 * hosts or pods fit); a miss costs one identity hash.
 */
public final class Utf8Cache {
    private static final int MIN_SLOTS = 16;
    private static final int MAX_SLOTS = 1_024;
    private final String[] keys;
    private final byte[][] values;
    private final int mask;

    /**
     * Creates a cache for a column of about {@code rows} rows.
     *
     * @param rows the rows the column is expected to hold (one slot per 8 rows, within the bounds above)
     */
    public Utf8Cache(int rows) {
        int slots = Integer.highestOneBit(Math.max(MIN_SLOTS, Math.min(MAX_SLOTS, rows / 8)));
        this.keys = new String[slots];
        this.values = new byte[slots][];
        this.mask = slots - 1;
    }

    /**
     * Returns the text's UTF-8 bytes (shared with earlier rows when the instance repeats: never modify them).
     *
     * @param text the text
     * @return its UTF-8 encoding
     */
    public byte[] encode(String text) {
        int slot = System.identityHashCode(text) & mask;
        if (keys[slot] == text) {
            return values[slot];
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        keys[slot] = text;
        values[slot] = bytes;
        return bytes;
    }
}
