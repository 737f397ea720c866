package dev.sluice.bulk.internal;

import dev.sluice.internal.memory.ReuseCache;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/** The process-wide Arrow root allocator, and the check that Arrow can run in this JVM at all. */
public final class ArrowSupport {
    /** The JVM option Arrow needs on Java 17+. */
    public static final String ADD_OPENS = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    /** The same flag when Arrow runs as a named module on the module path. */
    public static final String ADD_OPENS_MODULE_PATH = "--add-opens=java.base/java.nio=org.apache.arrow.memory.core";

    /** System property: bytes of released batch memory the client keeps for its next writers (default 4 GiB). */
    public static final String CACHE_BYTES_PROPERTY = "sluice.bulk.memoryCacheBytes";
    /** System property: milliseconds released batch memory is kept unused before it is freed (default 30,000). */
    public static final String CACHE_IDLE_PROPERTY = "sluice.bulk.memoryCacheIdleMs";
    static final long DEFAULT_CACHE_BYTES = 4L << 30;
    static final long DEFAULT_CACHE_IDLE_MS = 30_000;
    private static volatile BufferAllocator root;

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
     * Returns the shared root allocator (created on first use, unlimited: each writer has a capped child).
     * Memory a closed writer's batches held is kept for the next writers: at most the bytes the system property
     * {@value #CACHE_BYTES_PROPERTY} says (4 GiB by default), each buffer for at most the milliseconds
     * {@value #CACHE_IDLE_PROPERTY} says (30 s) unused, after which a daemon thread
     * ({@code sluice-memory-sweeper}) frees it.
     *
     * @return the root allocator
     */
    public static BufferAllocator root() {
        BufferAllocator r = root;
        if (r == null) {
            synchronized (ArrowSupport.class) {
                r = root;
                if (r == null) {
                    check();
                    long bytes = Long.getLong(CACHE_BYTES_PROPERTY, DEFAULT_CACHE_BYTES);
                    long idleMs = Long.getLong(CACHE_IDLE_PROPERTY, DEFAULT_CACHE_IDLE_MS);
                    r = new CachingRoot(Long.MAX_VALUE, new UnzeroedAllocationManager.Factory(Math.max(0, bytes),
                            TimeUnit.MILLISECONDS.toNanos(Math.max(0, idleMs)), System::nanoTime,
                            ReuseCache.sharedSweeper()));
                    root = r;
                }
            }
        }
        return r;
    }

    /**
     * Creates a separate root allocator with the same kind of memory manager as {@link #root()}: large buffers
     * come unzeroed from {@code malloc} and released ones are kept for reuse up to {@code cacheBytes}; small
     * ones come from netty's pool.
     *
     * @param limit the most bytes it may hand out
     * @param cacheBytes bytes of released large buffers kept for reuse (0 keeps none)
     * @return a new root allocator
     */
    public static BufferAllocator newRoot(long limit, long cacheBytes) {
        check();
        return new CachingRoot(limit, new UnzeroedAllocationManager.Factory(cacheBytes));
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
