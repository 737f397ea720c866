package dev.sluice.internal.write;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A few heap arrays that requests of up to {@value #LARGEST_POOLED} bytes are encoded into before gRPC copies
 * them into its transport buffers, shared by every client in the process. At most {@value #SLOTS} arrays are kept,
 * so the pool never holds more than {@code SLOTS * LARGEST_POOLED} bytes however many threads write.
 */
final class EncodeBuffers {
    /** The largest array kept: requests larger than this are encoded into it piece by piece. */
    static final int LARGEST_POOLED = 1 << 20;
    static final int SLOTS = 8;
    private static final int SMALLEST = 8 * 1024;
    private static final AtomicReferenceArray<byte[]> FREE = new AtomicReferenceArray<>(SLOTS);

    private EncodeBuffers() {
    }

    /**
     * Takes a pooled array of at least {@code size} bytes, or makes one (a power of two, so it fits later
     * requests of similar size).
     *
     * @param size bytes needed, at most {@link #LARGEST_POOLED}
     * @return an array only the caller uses until it is given back
     */
    static byte[] take(int size) {
        for (int i = 0; i < SLOTS; i++) {
            byte[] b = FREE.get(i);
            if (b != null && b.length >= size && FREE.compareAndSet(i, b, null)) {
                return b;
            }
        }
        return new byte[Math.max(SMALLEST, Integer.highestOneBit(Math.max(1, size - 1)) << 1)];
    }

    /**
     * Gives an array back; kept when a slot is free, else left to the garbage collector. A smaller array
     * makes room for a larger one, so the pool drifts toward the sizes requests need.
     *
     * @param buffer an array from {@link #take}
     */
    static void give(byte[] buffer) {
        if (buffer.length > LARGEST_POOLED) {
            return;
        }
        for (int i = 0; i < SLOTS; i++) {
            if (FREE.get(i) == null && FREE.compareAndSet(i, null, buffer)) {
                return;
            }
        }
        for (int i = 0; i < SLOTS; i++) {
            byte[] b = FREE.get(i);
            if (b != null && b.length < buffer.length && FREE.compareAndSet(i, b, buffer)) {
                return;
            }
        }
    }
}
