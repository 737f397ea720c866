package dev.sluice.internal.model;

import java.nio.charset.StandardCharsets;

/**
 * Encodes text to UTF-8, reusing the bytes when the very same {@code String} instance comes again (tag values,
 * enum-like fields and constants repeat a lot in time series), so a column holds one copy per distinct instance
 * it saw recently. A small direct-mapped cache per column; a miss costs one identity hash.
 */
public final class Utf8Cache {
    private static final int SIZE = 64;
    private final String[] keys = new String[SIZE];
    private final byte[][] values = new byte[SIZE][];

    /**
     * Returns the text's UTF-8 bytes (shared with earlier rows when the instance repeats: never modify them).
     *
     * @param text the text
     * @return its UTF-8 encoding
     */
    public byte[] encode(String text) {
        int slot = System.identityHashCode(text) & (SIZE - 1);
        if (keys[slot] == text) {
            return values[slot];
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        keys[slot] = text;
        values[slot] = bytes;
        return bytes;
    }
}
