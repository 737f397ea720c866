package dev.sluice.bulk.internal;

import dev.sluice.internal.bulk.spi.ReuseCache;
import java.util.concurrent.ScheduledExecutorService;
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
 * one. The budget, eviction and idle expiry are {@link ReuseCache}'s. Arrow accounts the size asked for; the
 * rounding adds at most an eighth on top, which the budget counts.
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
        private final ReuseCache<Long> cache;

        /**
         * Creates a factory that keeps released buffers for as long as it likes (within the budget).
         *
         * @param cacheBudget bytes of released large buffers kept for reuse (0 keeps none)
         */
        Factory(long cacheBudget) {
            this(cacheBudget, Long.MAX_VALUE, null, null);
        }

        /**
         * Creates a factory.
         *
         * @param cacheBudget bytes of released large buffers kept for reuse (0 keeps none)
         * @param idleNanos how long a released buffer is kept unused before it is freed
         * @param nanoTime the clock; null for {@code System.nanoTime()}
         * @param sweeper frees buffers whose idle time is up; null leaves that to {@link #expire()}
         */
        Factory(long cacheBudget, long idleNanos, LongSupplier nanoTime, ScheduledExecutorService sweeper) {
            this.cache = new ReuseCache<>(cacheBudget, idleNanos, nanoTime, sweeper, MemoryUtil::freeMemory);
        }

        @Override
        public AllocationManager create(BufferAllocator accountingAllocator, long size) {
            if (size < LARGE) {
                return NettyAllocationManager.FACTORY.create(accountingAllocator, size);
            }
            long capacity = sizeClass(size);
            Long reused = cache.take(capacity);
            return new UnzeroedAllocationManager(this, accountingAllocator,
                    reused != null ? reused : MemoryUtil.allocateMemory(capacity), size, capacity);
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

        /** Frees every buffer kept unused for the idle time or longer. */
        void expire() {
            cache.expire();
        }

        /**
         * Returns the bytes held for reuse.
         *
         * @return cached bytes
         */
        long cachedBytes() {
            return cache.cachedBytes();
        }

        /** Returns every cached buffer to the system, and keeps none from now on. */
        void trim() {
            cache.trim();
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
        owner.cache.keep(address, capacity);
    }
}
