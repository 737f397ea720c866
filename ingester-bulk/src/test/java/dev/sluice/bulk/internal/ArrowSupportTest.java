package dev.sluice.bulk.internal;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;

@SharesJvm
class ArrowSupportTest {
    private static final long MIB = 1 << 20;

    @Test
    void aClientRootKeepsReleasedLargeBuffersUpToItsBudgetUntilTrimmed() {
        BufferAllocator root = ArrowSupport.clientRoot(8 * MIB, TimeUnit.MINUTES.toNanos(1));
        try {
            root.buffer(2 * MIB).close();
            assertEquals(2 * MIB, ArrowSupport.cachedBytes(root), "the released 2 MiB buffer is kept");
            ArrowBuf again = root.buffer(2 * MIB);
            assertEquals(0, ArrowSupport.cachedBytes(root), "and handed out again");
            again.close();
            ArrowSupport.trimCache(root);
            assertEquals(0, ArrowSupport.cachedBytes(root), "trimmed: nothing kept");
            root.buffer(2 * MIB).close();
            assertEquals(0, ArrowSupport.cachedBytes(root), "after a trim, released buffers are freed at once");
        } finally {
            root.close();
        }
    }

    @Test
    void aClientRootWithNoCacheKeepsNothing() {
        BufferAllocator root = ArrowSupport.clientRoot(0, TimeUnit.MINUTES.toNanos(1));
        try {
            root.buffer(2 * MIB).close();
            assertEquals(0, ArrowSupport.cachedBytes(root));
        } finally {
            root.close();
        }
    }

    @Test
    void aClientRootNeverKeepsMoreThanItsBudget() {
        BufferAllocator root = ArrowSupport.clientRoot(3 * MIB, TimeUnit.MINUTES.toNanos(1));
        try {
            ArrowBuf a = root.buffer(2 * MIB);
            ArrowBuf b = root.buffer(2 * MIB);
            a.close();
            b.close();
            assertTrue(ArrowSupport.cachedBytes(root) <= 3 * MIB, "kept " + ArrowSupport.cachedBytes(root));
        } finally {
            root.close();
        }
    }
}
