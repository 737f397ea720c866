package dev.sluice.bulk.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

class UnzeroedAllocationManagerTest {
    static final long MIB = 1L << 20;

    static BufferAllocator rootWith(UnzeroedAllocationManager.Factory f) {
        return new RootAllocator(RootAllocator.configBuilder().allocationManagerFactory(f).build());
    }

    @Test
    void aReleasedLargeBufferIsHandedOutAgainForTheSameSize() {
        UnzeroedAllocationManager.Factory f = new UnzeroedAllocationManager.Factory(64 * MIB);
        try (BufferAllocator a = rootWith(f)) {
            long first;
            try (ArrowBuf b = a.buffer(16 * MIB)) {
                first = b.memoryAddress();
                b.setLong(16 * MIB - 8, 42L);
            }
            assertEquals(16 * MIB, f.cachedBytes());
            try (ArrowBuf again = a.buffer(16 * MIB)) {
                assertEquals(first, again.memoryAddress());
                assertEquals(0, f.cachedBytes());
                assertEquals(16 * MIB, a.getAllocatedMemory(), "Arrow accounts the reused buffer as allocated");
            }
            assertEquals(0, a.getAllocatedMemory());
        } finally {
            f.trim();
        }
        assertEquals(0, f.cachedBytes());
    }

    @Test
    void theCacheNeverHoldsMoreThanItsBudgetAndNothingAfterTrim() {
        UnzeroedAllocationManager.Factory f = new UnzeroedAllocationManager.Factory(40 * MIB);
        try (BufferAllocator a = rootWith(f)) {
            ArrowBuf x = a.buffer(32 * MIB);
            ArrowBuf y = a.buffer(32 * MIB);
            assertNotEquals(x.memoryAddress(), y.memoryAddress());
            x.close();
            y.close();
            assertEquals(32 * MIB, f.cachedBytes(), "the second buffer went back to the system");
            f.trim();
            assertEquals(0, f.cachedBytes());
            a.buffer(32 * MIB).close();
            assertEquals(0, f.cachedBytes(), "a trimmed cache keeps nothing");
        }
    }

    @Test
    void smallBuffersStayWithNettysPool() {
        UnzeroedAllocationManager.Factory f = new UnzeroedAllocationManager.Factory(64 * MIB);
        try (BufferAllocator a = rootWith(f)) {
            a.buffer(64 * 1024).close();
            assertEquals(0, f.cachedBytes());
        } finally {
            f.trim();
        }
    }

    @Test
    void closingACachingRootReturnsItsCachedMemory() {
        BufferAllocator a = ArrowSupport.newRoot(Long.MAX_VALUE, 64 * MIB);
        a.buffer(8 * MIB).close();
        assertEquals(8 * MIB, ArrowSupport.cachedBytes(a));
        a.close();
        assertEquals(0, ArrowSupport.cachedBytes(a));
    }
}
