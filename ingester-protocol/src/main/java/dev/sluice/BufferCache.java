package dev.sluice;

import dev.sluice.internal.transport.ReusingDirectAllocator;
import java.time.Duration;

/**
 * How much released memory a client keeps for its next large messages and bulk batches, instead of asking the
 * system for fresh pages each time (which the kernel then faults in and clears, page by page).
 *
 * <p>Two kinds of memory are kept, each in size classes, the longest-kept freed first when a new buffer does not
 * fit, and each buffer freed after {@code idle} unused (by the daemon thread {@code sluice-memory-sweeper}):
 * gRPC's direct transport buffers of 64 KiB to 4 MiB (they count toward the JVM's direct memory limit), and the
 * Arrow buffers of 1 MiB and more that bulk writers build batches in. The cache only ever holds memory that was
 * in use just before, so it does not raise the client's peak; it delays giving that memory back. A client's
 * caches are emptied when it shuts down.
 *
 * @param transportBytes bytes of released transport buffers kept (0 keeps none)
 * @param bulkBytes bytes of released bulk batch buffers kept (0 keeps none)
 * @param idle how long a kept buffer may stay unused before it is freed
 */
public record BufferCache(long transportBytes, long bulkBytes, Duration idle) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException when a size is negative or {@code idle} is not positive
     */
    public BufferCache {
        if (transportBytes < 0 || bulkBytes < 0) {
            throw new IllegalArgumentException("buffer cache sizes must be >= 0, got transport " + transportBytes
                    + " and bulk " + bulkBytes);
        }
        if (idle == null || idle.isNegative() || idle.isZero()) {
            throw new IllegalArgumentException("buffer cache idle time must be positive, got " + idle);
        }
    }

    /**
     * The defaults: transport buffers up to 1 GiB or a quarter of the JVM's direct memory limit, whichever is
     * less; bulk buffers up to 4 GiB; each kept at most 30 s unused.
     *
     * @return the default cache sizes
     */
    public static BufferCache defaults() {
        return new BufferCache(ReusingDirectAllocator.defaultBudget(), 4L << 30, Duration.ofSeconds(30));
    }

    /**
     * Keeps nothing: every released buffer goes back at once (transport buffers to netty's pool).
     *
     * @return an empty cache
     */
    public static BufferCache none() {
        return new BufferCache(0, 0, Duration.ofSeconds(30));
    }
}
