package dev.sluice.bulk.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.netty.NettyAllocationManager;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Arrow memory for large buffers taken straight from {@code malloc}, without the zero fill, and kept for reuse.
 *
 * <p>Arrow's netty manager hands buffers above netty's chunk size to {@code ByteBuffer.allocateDirect}, which
 * writes zeros over the whole region first; a 150 MB text column then costs a 150 MB memset on every growth, for
 * bytes that are overwritten anyway (Arrow zeroes the validity and offset buffers itself, and never relies on a
 * fresh buffer being zero). Small buffers keep netty's pooled, fast path.
 *
 * <p>A large buffer released is kept, up to a byte budget per factory, and handed out again for a later request
 * in the same size class. Classes are an eighth of a power of two apart (150,000,000 bytes asked for get 144 MiB of
 * memory), so a received batch body, whose exact size differs batch after batch, still finds the last one's
 * memory. Without that, every 150 MB batch would come from fresh pages that the kernel faults in and clears one by
 * one. When a buffer does not fit the budget, the longest-cached ones are freed to make room; a buffer left unused
 * for the idle time goes back to the system. Arrow accounts the size asked for; the rounding adds at most an eighth
 * on top, which the budget counts.
 */
final class UnzeroedAllocationManager extends AllocationManager {
    /** Buffers this large or larger skip netty's pool. */
    static final long LARGE = 1L << 20;

    private final Factory owner;
    private final long address;
    private final long size;
    private final long capacity;

    /** Creates large buffers (reusing released ones) and hands the rest to Arrow's netty manager. */
    static final class Factory implements AllocationManager.Factory {
        private final long cacheBudget;
        private final long idleNanos;
        private final LongSupplier nanoTime;
        private final ScheduledExecutorService sweeper;
        private boolean sweepPending;
        /** Cached buffers per size class, the most recently released last. */
        private final Map<Long, ArrayDeque<Cached>> free = new HashMap<>();
        /** Every cached buffer, the longest cached first (the same entries as {@code free} holds). */
        private final ArrayDeque<Cached> byAge = new ArrayDeque<>();
        private long cached;
        private boolean trimmed;

        /** A released buffer waiting for reuse. */
        private static final class Cached {
            final long address;
            final long capacity;
            final long releasedAt;

            Cached(long address, long capacity, long releasedAt) {
                this.address = address;
                this.capacity = capacity;
                this.releasedAt = releasedAt;
            }
        }

        /**
         * Creates a factory that keeps released buffers for as long as it likes (within the budget).
         *
         * @param cacheBudget bytes of released large buffers kept for reuse (0 keeps none)
         */
        Factory(long cacheBudget) {
            this(cacheBudget, Long.MAX_VALUE, System::nanoTime, null);
        }

        /**
         * Creates a factory.
         *
         * @param cacheBudget bytes of released large buffers kept for reuse (0 keeps none)
         * @param idleNanos how long a released buffer is kept unused before {@link #expire()} frees it
         * @param nanoTime the clock
         * @param sweeper runs {@link #expire()} once the oldest cached buffer has been idle long enough; null leaves
         *     expiry to the caller
         */
        Factory(long cacheBudget, long idleNanos, LongSupplier nanoTime, ScheduledExecutorService sweeper) {
            this.cacheBudget = cacheBudget;
            this.idleNanos = idleNanos;
            this.nanoTime = nanoTime;
            this.sweeper = sweeper;
        }

        @Override
        public AllocationManager create(BufferAllocator accountingAllocator, long size) {
            if (size < LARGE) {
                return NettyAllocationManager.FACTORY.create(accountingAllocator, size);
            }
            long capacity = sizeClass(size);
            long reused = 0;
            synchronized (this) {
                ArrayDeque<Cached> same = free.get(capacity);
                if (same != null) {
                    Cached c = same.pollLast();
                    if (same.isEmpty()) {
                        free.remove(capacity);
                    }
                    byAge.removeLastOccurrence(c);
                    cached -= capacity;
                    reused = c.address;
                }
            }
            return new UnzeroedAllocationManager(this, accountingAllocator,
                    reused != 0 ? reused : MemoryUtil.allocateMemory(capacity), size, capacity);
        }

        /**
         * Rounds a large size up to its class: the next multiple of an eighth of the largest power of two not
         * above it.
         *
         * @param size bytes asked for, at least {@link #LARGE}
         * @return bytes to allocate
         */
        static long sizeClass(long size) {
            long step = Long.highestOneBit(size) >>> 3;
            return (size + step - 1) / step * step;
        }

        @Override
        public ArrowBuf empty() {
            return NettyAllocationManager.FACTORY.empty();
        }

        /** Keeps a released buffer, making room by freeing the longest-cached ones, or frees it. */
        void release(long address, long capacity) {
            List<Cached> evicted = new ArrayList<>();
            boolean kept = false;
            synchronized (this) {
                if (!trimmed && capacity <= cacheBudget) {
                    while (cached + capacity > cacheBudget) {
                        evicted.add(forgetOldest());
                    }
                    Cached c = new Cached(address, capacity, nanoTime.getAsLong());
                    free.computeIfAbsent(capacity, k -> new ArrayDeque<>()).addLast(c);
                    byAge.addLast(c);
                    cached += capacity;
                    kept = true;
                    sweepLater(idleNanos);
                }
            }
            for (Cached c : evicted) {
                MemoryUtil.freeMemory(c.address);
            }
            if (!kept) {
                MemoryUtil.freeMemory(address);
            }
        }

        /** Takes the longest-cached buffer out of the cache; caller holds the lock and frees it. */
        private Cached forgetOldest() {
            Cached oldest = byAge.pollFirst();
            ArrayDeque<Cached> same = free.get(oldest.capacity);
            same.removeFirstOccurrence(oldest);
            if (same.isEmpty()) {
                free.remove(oldest.capacity);
            }
            cached -= oldest.capacity;
            return oldest;
        }

        /** Schedules an expiry run unless one is pending; caller holds the lock. */
        private void sweepLater(long delayNanos) {
            if (sweeper == null || sweepPending) {
                return;
            }
            try {
                sweeper.schedule(this::expire, delayNanos, TimeUnit.NANOSECONDS);
                sweepPending = true;
            } catch (RejectedExecutionException e) {
                // Only when the JVM is going down; the memory goes with the process.
            }
        }

        /** Frees every buffer that has been cached, unused, for the idle time or longer. */
        void expire() {
            List<Cached> expired = new ArrayList<>();
            synchronized (this) {
                sweepPending = false;
                long now = nanoTime.getAsLong();
                while (!byAge.isEmpty() && now - byAge.peekFirst().releasedAt >= idleNanos) {
                    expired.add(forgetOldest());
                }
                if (!byAge.isEmpty() && !trimmed) {
                    sweepLater(byAge.peekFirst().releasedAt + idleNanos - now);
                }
            }
            for (Cached c : expired) {
                MemoryUtil.freeMemory(c.address);
            }
        }

        /**
         * Returns the bytes held for reuse.
         *
         * @return cached bytes
         */
        synchronized long cachedBytes() {
            return cached;
        }

        /** Returns every cached buffer to the system, and keeps none from now on. */
        void trim() {
            List<Cached> all = new ArrayList<>();
            synchronized (this) {
                trimmed = true;
                all.addAll(byAge);
                byAge.clear();
                free.clear();
                cached = 0;
            }
            for (Cached c : all) {
                MemoryUtil.freeMemory(c.address);
            }
        }
    }

    private UnzeroedAllocationManager(Factory owner, BufferAllocator accountingAllocator, long address, long size,
            long capacity) {
        super(accountingAllocator);
        this.owner = owner;
        this.address = address;
        this.size = size;
        this.capacity = capacity;
    }

    @Override
    public long getSize() {
        return size;
    }

    @Override
    protected long memoryAddress() {
        return address;
    }

    @Override
    protected void release0() {
        owner.release(address, capacity);
    }
}
