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
 * <p>Immutable; build with {@link #newBuilder()} (which starts from the defaults) or take {@link #none()}.
 */
public final class BufferCache {
    private static final BufferCache NONE = new Builder().transportBytes(0).bulkBytes(0).build();

    private final long transportBytes;
    private final long bulkBytes;
    private final Duration idle;

    private BufferCache(Builder b) {
        if (b.transportBytes < 0 || b.bulkBytes < 0) {
            throw new IllegalArgumentException("buffer cache sizes must be >= 0, got transport " + b.transportBytes
                    + " and bulk " + b.bulkBytes);
        }
        if (b.idle == null || b.idle.isNegative() || b.idle.isZero()) {
            throw new IllegalArgumentException("buffer cache idle time must be positive, got " + b.idle);
        }
        this.transportBytes = b.transportBytes;
        this.bulkBytes = b.bulkBytes;
        this.idle = b.idle;
    }

    /**
     * Starts from the defaults: transport buffers up to 1 GiB or a quarter of the JVM's direct memory limit,
     * whichever is less; bulk buffers up to 4 GiB; each kept at most 30 s unused.
     *
     * @return a builder holding the defaults
     */
    public static Builder newBuilder() {
        return new Builder();
    }

    /**
     * Keeps nothing: every released buffer goes back at once (transport buffers to netty's pool).
     *
     * @return an empty cache
     */
    public static BufferCache none() {
        return NONE;
    }

    /**
     * Starts a builder holding these sizes.
     *
     * @return a builder
     */
    public Builder toBuilder() {
        return new Builder().transportBytes(transportBytes).bulkBytes(bulkBytes).idle(idle);
    }

    /** @return bytes of released transport buffers kept (0 keeps none) */
    public long transportBytes() {
        return transportBytes;
    }

    /** @return bytes of released bulk batch buffers kept (0 keeps none) */
    public long bulkBytes() {
        return bulkBytes;
    }

    /** @return how long a kept buffer may stay unused before it is freed */
    public Duration idle() {
        return idle;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BufferCache c && c.transportBytes == transportBytes && c.bulkBytes == bulkBytes
                && c.idle.equals(idle);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(transportBytes, bulkBytes, idle);
    }

    @Override
    public String toString() {
        return "BufferCache[transportBytes=" + transportBytes + ", bulkBytes=" + bulkBytes + ", idle=" + idle + ']';
    }

    /** Builder for {@link BufferCache}; starts from the defaults. */
    public static final class Builder {
        private long transportBytes = ReusingDirectAllocator.defaultBudget();
        private long bulkBytes = 4L << 30;
        private Duration idle = Duration.ofSeconds(30);

        private Builder() {
        }

        /**
         * Sets the bytes of released transport buffers kept.
         *
         * @param bytes 0 or more (0 keeps none)
         * @return this
         */
        public Builder transportBytes(long bytes) {
            this.transportBytes = bytes;
            return this;
        }

        /**
         * Sets the bytes of released bulk batch buffers kept.
         *
         * @param bytes 0 or more (0 keeps none; default 4 GiB)
         * @return this
         */
        public Builder bulkBytes(long bytes) {
            this.bulkBytes = bytes;
            return this;
        }

        /**
         * Sets how long a kept buffer may stay unused before it is freed.
         *
         * @param idle a positive duration (default 30 s)
         * @return this
         */
        public Builder idle(Duration idle) {
            this.idle = idle;
            return this;
        }

        /**
         * Builds the cache sizes.
         *
         * @return the sizes
         * @throws IllegalArgumentException when a size is negative or {@code idle} is not positive
         */
        public BufferCache build() {
            return new BufferCache(this);
        }
    }
}
