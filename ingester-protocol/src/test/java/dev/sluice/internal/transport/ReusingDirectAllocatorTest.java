package dev.sluice.internal.transport;

import dev.sluice.internal.bulk.spi.ReuseCache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReusingDirectAllocatorTest {
    static final int MIB = 1 << 20;
    final ReusingDirectAllocator alloc = new ReusingDirectAllocator(PooledByteBufAllocator.DEFAULT, 8L * MIB,
            Long.MAX_VALUE, System::nanoTime, null);

    @AfterEach
    void trim() {
        alloc.cache().trim();
    }

    @Test
    void aReleasedMessageBufferIsHandedToTheNextBufferOfItsSize() {
        ByteBuf first = alloc.directBuffer(MIB, MIB);
        long address = first.memoryAddress();
        first.writeLong(42L);
        first.release();
        assertEquals(MIB, alloc.cache().cachedBytes());
        ByteBuf again = alloc.directBuffer(MIB, MIB);
        assertEquals(address, again.memoryAddress());
        assertEquals(0, alloc.cache().cachedBytes());
        assertEquals(MIB, again.capacity());
        assertEquals(0, again.readableBytes(), "a reused buffer starts empty");
        again.writeInt(7);
        assertEquals(7, again.readInt());
        again.release();
    }

    @Test
    void otherSizesAndHeapBuffersStayWithNettysPool() {
        alloc.directBuffer(100_000).release();
        alloc.directBuffer(4096).release();
        alloc.directBuffer(8 * MIB).release();
        alloc.heapBuffer(MIB).release();
        assertEquals(0, alloc.cache().cachedBytes());
    }

    @Test
    void aReusedBufferThatGrowsKeepsItsBytesAndReturnsItsFirstMemory() {
        ByteBuf b = alloc.directBuffer(64 * 1024);
        for (int i = 0; i < 50_000; i++) {
            b.writeInt(i);
        }
        assertTrue(b.capacity() >= 200_000);
        for (int i = 0; i < 50_000; i++) {
            assertEquals(i, b.readInt());
        }
        assertEquals(256 * 1024, b.capacity(), "netty doubles: 64 KiB, 128 KiB, 256 KiB");
        assertEquals(192 * 1024, alloc.cache().cachedBytes(), "the 64 and 128 KiB memory went back as the buffer grew");
        b.release();
        assertEquals(448 * 1024, alloc.cache().cachedBytes());
    }

    @Test
    void theBudgetBoundsWhatIsKept() {
        ByteBuf[] held = new ByteBuf[4];
        for (int i = 0; i < held.length; i++) {
            held[i] = alloc.directBuffer(4 * MIB, 4 * MIB);
        }
        long last = held[3].memoryAddress();
        for (ByteBuf b : held) {
            b.release();
        }
        assertEquals(8L * MIB, alloc.cache().cachedBytes(), "two of four 4 MiB buffers fit an 8 MiB budget");
        ByteBuf next = alloc.directBuffer(4 * MIB, 4 * MIB);
        assertEquals(last, next.memoryAddress(), "the most recently released comes back first");
        next.release();
        alloc.cache().trim();
        assertEquals(0, alloc.cache().cachedBytes());
        ByteBuf after = alloc.directBuffer(4 * MIB, 4 * MIB);
        after.release();
        assertEquals(0, alloc.cache().cachedBytes(), "a trimmed cache keeps nothing");
        assertNotEquals(0, after.capacity());
    }
}
