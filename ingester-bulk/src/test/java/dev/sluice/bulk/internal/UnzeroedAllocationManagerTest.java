package dev.sluice.bulk.internal;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

@SharesJvm
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
    void aBodyOfSlightlyDifferentSizeReusesTheLastOnesMemory() {
        UnzeroedAllocationManager.Factory f = new UnzeroedAllocationManager.Factory(512 * MIB);
        try (BufferAllocator a = rootWith(f)) {
            long first;
            long asked = 150_000_123L;
            try (ArrowBuf b = a.buffer(asked)) {
                first = b.memoryAddress();
                assertEquals(asked, b.capacity());
                b.setLong(asked - 8, 7L);
            }
            assertEquals(144 * MIB, f.cachedBytes(), "150 MB is kept as its 144 MiB class");
            try (ArrowBuf again = a.buffer(asked + 900_000L)) {
                assertEquals(first, again.memoryAddress());
                assertEquals(asked + 900_000L, a.getAllocatedMemory(), "Arrow accounts what was asked for");
            }
            try (ArrowBuf other = a.buffer(200 * MIB)) {
                assertNotEquals(first, other.memoryAddress(), "another class gets other memory");
            }
        } finally {
            f.trim();
        }
    }

    @Test
    void sizeClassesAreAnEighthOfAPowerOfTwoApart() {
        assertEquals(MIB, UnzeroedAllocationManager.Factory.sizeClass(MIB));
        assertEquals(MIB + 128 * 1024, UnzeroedAllocationManager.Factory.sizeClass(MIB + 1));
        assertEquals(144 * MIB, UnzeroedAllocationManager.Factory.sizeClass(150_000_123L));
        assertEquals(256 * MIB, UnzeroedAllocationManager.Factory.sizeClass(256 * MIB));
        assertEquals(288 * MIB, UnzeroedAllocationManager.Factory.sizeClass(256 * MIB + 1));
    }

    @Test
    void aFullCacheFreesItsLongestCachedBuffersForANewOneAndKeepsNothingAfterTrim() {
        UnzeroedAllocationManager.Factory f = new UnzeroedAllocationManager.Factory(40 * MIB);
        try (BufferAllocator a = rootWith(f)) {
            ArrowBuf x = a.buffer(32 * MIB);
            ArrowBuf y = a.buffer(32 * MIB);
            long yAddress = y.memoryAddress();
            assertNotEquals(x.memoryAddress(), yAddress);
            x.close();
            y.close();
            assertEquals(32 * MIB, f.cachedBytes(), "x went back to the system to make room for y");
            try (ArrowBuf again = a.buffer(32 * MIB)) {
                assertEquals(yAddress, again.memoryAddress());
            }
            a.buffer(64 * MIB).close();
            assertEquals(32 * MIB, f.cachedBytes(), "a buffer larger than the whole budget is never kept");
            f.trim();
            assertEquals(0, f.cachedBytes());
            a.buffer(32 * MIB).close();
            assertEquals(0, f.cachedBytes(), "a trimmed cache keeps nothing");
        }
    }

    @Test
    void buffersLeftUnusedForTheIdleTimeAreFreedAndRecentOnesKept() {
        AtomicLong now = new AtomicLong();
        UnzeroedAllocationManager.Factory f = new UnzeroedAllocationManager.Factory(256 * MIB, 1_000, now::get, null);
        try (BufferAllocator a = rootWith(f)) {
            a.buffer(8 * MIB).close();
            now.set(600);
            a.buffer(16 * MIB).close();
            f.expire();
            assertEquals(24 * MIB, f.cachedBytes(), "nothing has been idle for 1,000 ns yet");
            now.set(1_000);
            f.expire();
            assertEquals(16 * MIB, f.cachedBytes(), "the 8 MiB buffer's idle time is up");
            try (ArrowBuf reused = a.buffer(16 * MIB)) {
                assertEquals(0, f.cachedBytes());
                now.set(5_000);
                f.expire();
            }
            assertEquals(16 * MIB, f.cachedBytes(), "a buffer's idle time starts when it is released again");
            now.set(6_000);
            f.expire();
            assertEquals(0, f.cachedBytes());
        } finally {
            f.trim();
        }
    }

    @Test
    void theSweeperFreesIdleBuffersWithoutFurtherCalls() throws Exception {
        ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor();
        UnzeroedAllocationManager.Factory f = new UnzeroedAllocationManager.Factory(256 * MIB,
                TimeUnit.MILLISECONDS.toNanos(50), System::nanoTime, sweeper);
        try (BufferAllocator a = rootWith(f)) {
            a.buffer(8 * MIB).close();
            a.buffer(16 * MIB).close();
            assertEquals(24 * MIB, f.cachedBytes());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            dev.sluice.Await.happensBy(deadline, () -> f.cachedBytes() == 0);
            assertEquals(0, f.cachedBytes(), "the sweeper freed both buffers after their idle time");
        } finally {
            f.trim();
            sweeper.shutdownNow();
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
