package dev.sluice.bulk.internal;

import dev.sluice.internal.bulk.spi.ReuseCache;
import java.nio.ByteBuffer;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/** Arrow root allocators with Sluice's memory manager, and the check that Arrow can run in this JVM at all. */
public final class ArrowSupport {
    /** The JVM option Arrow needs on Java 17+. */
    public static final String ADD_OPENS = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    /** The same flag when Arrow runs as a named module on the module path. */
    public static final String ADD_OPENS_MODULE_PATH = "--add-opens=java.base/java.nio=org.apache.arrow.memory.core";

    private ArrowSupport() {
    }

    /**
     * Makes sure Arrow's memory layer can start.
     *
     * @throws IllegalStateException naming the JVM flag when {@code java.nio} is not opened to Arrow
     */
    public static void check() {
        try {
            // Arrow 19 starts without the flag and fails later, on the first batch, where it wraps its memory in
            // a ByteBuffer: ask for both directions of that here, so the writer is refused before any data.
            ByteBuffer probe = ByteBuffer.allocateDirect(8);
            long address = MemoryUtil.getByteBufferAddress(probe);
            if (MemoryUtil.directBuffer(address, probe.capacity()).capacity() != probe.capacity()) {
                throw new IllegalStateException("Arrow wrapped direct memory with the wrong capacity");
            }
        } catch (Throwable t) {
            // On the module path Arrow is the named module org.apache.arrow.memory.core, not ALL-UNNAMED.
            String flag = MemoryUtil.class.getModule().isNamed() ? ADD_OPENS_MODULE_PATH : ADD_OPENS;
            throw new IllegalStateException("bulk writes use Apache Arrow, which needs the JVM option " + flag
                    + " on Java 17 and later (add it to the java command, surefire argLine or the jar manifest's"
                    + " Add-Opens: java.base/java.nio)", t);
        }
    }

    /**
     * Creates a root allocator whose large buffers come unzeroed from {@code malloc} and whose released ones
     * are kept for reuse up to {@code cacheBytes}, each for as long as the cache likes; small ones come from
     * netty's pool.
     *
     * @param limit the most bytes it may hand out
     * @param cacheBytes bytes of released large buffers kept for reuse (0 keeps none)
     * @return a new root allocator
     */
    public static BufferAllocator newRoot(long limit, long cacheBytes) {
        check();
        return new CachingRoot(limit, new UnzeroedAllocationManager.Factory(cacheBytes));
    }

    /**
     * Creates a client's root allocator (unlimited: each writer has a capped child), as {@link #newRoot(long,
     * long)} does, with released buffers freed by the shared daemon thread {@code sluice-memory-sweeper} once
     * unused for {@code idleNanos}.
     *
     * @param cacheBytes bytes of released large buffers kept for reuse (0 keeps none)
     * @param idleNanos how long a released buffer is kept unused
     * @return a new root allocator
     */
    public static BufferAllocator clientRoot(long cacheBytes, long idleNanos) {
        return clientRoot(cacheBytes, idleNanos, ReuseCache.sharedSweeper());
    }

    /**
     * Creates a client's root allocator whose released buffers are freed by the client's own timer, so no thread
     * outlives the client. The caller has {@linkplain #check() checked} that Arrow can run.
     *
     * @param cacheBytes bytes of released large buffers kept for reuse (0 keeps none)
     * @param idleNanos how long a released buffer is kept unused
     * @param sweeper the client's timer
     * @return a new root allocator
     */
    public static BufferAllocator clientRoot(long cacheBytes, long idleNanos, ScheduledExecutorService sweeper) {
        return new CachingRoot(Long.MAX_VALUE, new UnzeroedAllocationManager.Factory(cacheBytes, idleNanos,
                null, sweeper));
    }

    /**
     * Frees every buffer a root from this class keeps for reuse, and keeps none from now on (its buffers still in
     * use are freed when released). Does nothing for other allocators.
     *
     * @param root a root allocator
     */
    public static void trimCache(BufferAllocator root) {
        if (root instanceof CachingRoot) {
            ((CachingRoot) root).factory.trim();
        }
    }

    /** Bytes a root from {@link #newRoot} keeps for reuse (0 for any other allocator). */
    static long cachedBytes(BufferAllocator root) {
        return root instanceof CachingRoot ? ((CachingRoot) root).factory.cachedBytes() : 0;
    }

    /** A root allocator whose {@code close()} also returns its cached buffers to the system. */
    private static final class CachingRoot extends RootAllocator {
        private final UnzeroedAllocationManager.Factory factory;

        CachingRoot(long limit, UnzeroedAllocationManager.Factory factory) {
            super(RootAllocator.configBuilder().maxAllocation(limit).allocationManagerFactory(factory).build());
            this.factory = factory;
        }

        @Override
        public void close() {
            try {
                super.close();
            } finally {
                factory.trim();
            }
        }
    }
}
