package dev.sluice.internal.transport;

import dev.sluice.internal.bulk.spi.ReuseCache;

import io.grpc.netty.shaded.io.netty.buffer.AbstractByteBufAllocator;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.ByteBufAllocator;
import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import io.grpc.netty.shaded.io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.grpc.netty.shaded.io.netty.util.internal.CleanableDirectBuffer;
import io.grpc.netty.shaded.io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A netty allocator for gRPC channels that keeps the large direct buffers a big message passes through, and hands
 * them to the next message.
 *
 * <p>gRPC copies an outgoing message into buffers of up to 1 MiB and reads incoming bytes in buffers of up to
 * 64 KiB, holding all of a message's buffers until it is sent or complete. With 150 MB messages, netty's pool grows
 * by dozens of chunks per message and frees each chunk as soon as it empties, so every message's bytes land in
 * freshly mapped pages: a profile of the logs benchmark's bulk mode showed the kernel faulting and clearing those
 * pages in a tenth of all CPU time. Here, direct buffers whose capacity is a power of two from 64 KiB to 4 MiB
 * come from a {@link ReuseCache} and go back to it when released; every other buffer comes from netty's pool as
 * before. Buffers are allocated with {@code ByteBuffer.allocateDirect}, so they count toward the JVM's direct
 * memory limit, kept ones included: the default budget is therefore at most a quarter of that limit.
 */
public final class ReusingDirectAllocator extends AbstractByteBufAllocator {
    static final int MIN_REUSED = 64 << 10;
    static final int MAX_REUSED = 4 << 20;

    private final ByteBufAllocator others;
    private final ReuseCache<ByteBuffer> cache;

    /**
     * Creates an allocator.
     *
     * @param others where buffers of other sizes, and heap buffers, come from
     * @param budget bytes of released buffers kept
     * @param idleNanos how long a released buffer is kept unused
     * @param nanoTime the clock
     * @param sweeper frees buffers whose idle time is up; null leaves that to {@link #cache()}'s callers
     */
    public ReusingDirectAllocator(ByteBufAllocator others, long budget, long idleNanos, LongSupplier nanoTime,
                                  ScheduledExecutorService sweeper) {
        super(true);
        this.others = others;
        this.cache = new ReuseCache<>(budget, idleNanos, nanoTime, sweeper, PlatformDependent::freeDirectBuffer);
    }

    /**
     * Returns the default budget: 1 GiB or a quarter of the JVM's direct memory limit, whichever is less.
     *
     * @return bytes
     */
    public static long defaultBudget() {
        return Math.min(1L << 30, PlatformDependent.maxDirectMemory() / 4);
    }

    /**
     * Returns the cache of released buffers.
     *
     * @return the cache
     */
    public ReuseCache<ByteBuffer> cache() {
        return cache;
    }

    static boolean reused(int capacity) {
        return capacity >= MIN_REUSED && capacity <= MAX_REUSED && Integer.bitCount(capacity) == 1;
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return others.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return reused(initialCapacity) ? new Reused(this, initialCapacity, maxCapacity)
                : others.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    private ByteBuffer take(int capacity) {
        ByteBuffer b = reused(capacity) ? cache.take(capacity) : null;
        if (b == null) {
            return ByteBuffer.allocateDirect(capacity);
        }
        b.clear();
        return b;
    }

    private void give(ByteBuffer b) {
        if (reused(b.capacity())) {
            cache.keep(b, b.capacity());
        } else {
            PlatformDependent.freeDirectBuffer(b);
        }
    }

    /**
     * A direct buffer whose memory comes from, and goes back to, the allocator's cache (also when resized).
     *
     * <p>Netty 4.2 allocates a new buffer's first memory through a package-private method, so the buffer starts
     * empty and takes its memory through {@link #capacity(int)}, which goes through
     * {@link #allocateDirectBuffer(int)}. Memory is handed back when netty cleans it: on release and on resize.
     */
    private static final class Reused extends UnpooledUnsafeDirectByteBuf {
        Reused(ReusingDirectAllocator alloc, int initialCapacity, int maxCapacity) {
            super(alloc, 0, maxCapacity);
            capacity(initialCapacity);
        }

        @Override
        protected CleanableDirectBuffer allocateDirectBuffer(int capacity) {
            ReusingDirectAllocator owner = (ReusingDirectAllocator) alloc();
            ByteBuffer memory = owner.take(capacity);
            return new CleanableDirectBuffer() {
                @Override
                public ByteBuffer buffer() {
                    return memory;
                }

                @Override
                public void clean() {
                    owner.give(memory);
                }
            };
        }
    }
}
