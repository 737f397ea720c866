package dev.sluice.bulk.internal;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
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
 * <p>A large buffer released is kept, up to a byte budget per factory, and handed out again for a request of the
 * same size (Arrow rounds requests, so sizes repeat batch after batch). Without that, every 150 MB batch would
 * come from fresh pages that the kernel faults in and clears one by one. Beyond the budget, memory goes back to
 * the system at once.
 */
final class UnzeroedAllocationManager extends AllocationManager {
    /** Buffers this large or larger skip netty's pool. */
    static final long LARGE = 1L << 20;

    private final Factory owner;
    private final long address;
    private final long size;

    /** Creates large buffers (reusing released ones) and hands the rest to Arrow's netty manager. */
    static final class Factory implements AllocationManager.Factory {
        private final long cacheBudget;
        private final Map<Long, ArrayDeque<Long>> free = new HashMap<>();
        private long cached;
        private boolean trimmed;

        /**
         * Creates a factory.
         *
         * @param cacheBudget bytes of released large buffers kept for reuse (0 keeps none)
         */
        Factory(long cacheBudget) {
            this.cacheBudget = cacheBudget;
        }

        @Override
        public AllocationManager create(BufferAllocator accountingAllocator, long size) {
            if (size < LARGE) {
                return NettyAllocationManager.FACTORY.create(accountingAllocator, size);
            }
            Long reused = null;
            synchronized (this) {
                ArrayDeque<Long> same = free.get(size);
                if (same != null && !same.isEmpty()) {
                    reused = same.pop();
                    cached -= size;
                }
            }
            return new UnzeroedAllocationManager(this, accountingAllocator,
                    reused != null ? reused : MemoryUtil.allocateMemory(size), size);
        }

        @Override
        public ArrowBuf empty() {
            return NettyAllocationManager.FACTORY.empty();
        }

        void release(long address, long size) {
            synchronized (this) {
                if (!trimmed && cached + size <= cacheBudget) {
                    free.computeIfAbsent(size, s -> new ArrayDeque<>()).push(address);
                    cached += size;
                    return;
                }
            }
            MemoryUtil.freeMemory(address);
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
        synchronized void trim() {
            trimmed = true;
            for (ArrayDeque<Long> q : free.values()) {
                for (Long a : q) {
                    MemoryUtil.freeMemory(a);
                }
            }
            free.clear();
            cached = 0;
        }
    }

    private UnzeroedAllocationManager(Factory owner, BufferAllocator accountingAllocator, long address, long size) {
        super(accountingAllocator);
        this.owner = owner;
        this.address = address;
        this.size = size;
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
        owner.release(address, size);
    }
}
