package dev.sluice.bulk.internal;

import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.netty.NettyAllocationManager;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Arrow memory for large buffers taken straight from {@code malloc}, without the zero fill.
 *
 * <p>Arrow's netty manager hands buffers above netty's chunk size to {@code ByteBuffer.allocateDirect}, which
 * writes zeros over the whole region first; a 150 MB text column then costs a 150 MB memset on every growth, for
 * bytes that are overwritten anyway (Arrow zeroes the validity and offset buffers itself, and never relies on a
 * fresh buffer being zero). Small buffers keep netty's pooled, fast path.
 */
final class UnzeroedAllocationManager extends AllocationManager {
    /** Buffers this large or larger skip netty's pool. */
    static final long LARGE = 1L << 20;

    /** Creates large buffers here and the rest through Arrow's netty manager. */
    static final AllocationManager.Factory FACTORY = new AllocationManager.Factory() {
        @Override
        public AllocationManager create(BufferAllocator accountingAllocator, long size) {
            return size >= LARGE ? new UnzeroedAllocationManager(accountingAllocator, size)
                    : NettyAllocationManager.FACTORY.create(accountingAllocator, size);
        }

        @Override
        public ArrowBuf empty() {
            return NettyAllocationManager.FACTORY.empty();
        }
    };

    private final long address;
    private final long size;

    private UnzeroedAllocationManager(BufferAllocator accountingAllocator, long size) {
        super(accountingAllocator);
        this.address = MemoryUtil.allocateMemory(size);
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
        MemoryUtil.freeMemory(address);
    }
}
