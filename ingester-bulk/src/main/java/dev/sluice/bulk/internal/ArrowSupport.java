package dev.sluice.bulk.internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** The process-wide Arrow root allocator, and the check that Arrow can run in this JVM at all. */
public final class ArrowSupport {
    /** The JVM option Arrow needs on Java 17+. */
    public static final String ADD_OPENS = "--add-opens=java.base/java.nio=ALL-UNNAMED";
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
            Class.forName("org.apache.arrow.memory.util.MemoryUtil", true, ArrowSupport.class.getClassLoader());
        } catch (Throwable t) {
            throw new IllegalStateException("bulk writes use Apache Arrow, which needs the JVM option " + ADD_OPENS
                    + " on Java 17 and later (add it to the java command, surefire argLine or the jar manifest's"
                    + " Add-Opens: java.base/java.nio)", t);
        }
    }

    /**
     * Returns the shared root allocator (created on first use, unlimited: each writer has a capped child).
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
                    r = newRoot(Long.MAX_VALUE);
                    root = r;
                }
            }
        }
        return r;
    }

    /**
     * Creates a separate root allocator with the same memory manager as {@link #root()}: large buffers come
     * unzeroed from {@code malloc}, small ones from netty's pool.
     *
     * @param limit the most bytes it may hand out
     * @return a new root allocator
     */
    public static BufferAllocator newRoot(long limit) {
        check();
        return new RootAllocator(RootAllocator.configBuilder().maxAllocation(limit)
                .allocationManagerFactory(UnzeroedAllocationManager.FACTORY).build());
    }
}
