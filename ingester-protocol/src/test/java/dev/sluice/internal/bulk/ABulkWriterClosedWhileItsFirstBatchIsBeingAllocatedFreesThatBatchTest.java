package dev.sluice.internal.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.internal.bulk.spi.BatchGuard;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.TableCodec;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A bulk writer's first batch is allocated when the producer first asks for it. A close from another thread while
 * that allocation is under way waits for it and then frees the new batch: the codec's rows are never closed while
 * they are still being made (with Arrow, the writer's allocator would be closed under vectors just allocated, and
 * their memory reported as leaked).
 */
class ABulkWriterClosedWhileItsFirstBatchIsBeingAllocatedFreesThatBatchTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    /** A codec whose rows take until {@link #finish} to make, and which records what its close found. */
    static final class SlowRowsCodec implements TableCodec {
        final CountDownLatch making = new CountDownLatch(1);
        final CountDownLatch finish = new CountDownLatch(1);
        volatile boolean made;
        /** Whether the rows were made when {@link #closeRows} ran; null until it runs. */
        final AtomicReference<Boolean> madeAtClose = new AtomicReference<>();

        @Override
        public BulkMessage schemaMessage() {
            return BulkMessage.ofBytes(new byte[16]);
        }

        @Override
        public TableBufferRoot rows(int capacity, BatchGuard guard) {
            making.countDown();
            try {
                assertTrue(finish.await(30, TimeUnit.SECONDS), "the test never let the rows finish");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            made = true;
            return new ABatchGoesToTheTransportInsideItsWriteNextTest.FixedSizeCodec().rows(capacity, guard);
        }

        @Override
        public long sizeBound() {
            throw new UnsupportedOperationException();
        }

        @Override
        public BulkMessage unload(long requestId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void reset() {
        }

        @Override
        public void closeRows() {
            madeAtClose.compareAndSet(null, made);
        }

        @Override
        public void close() {
        }

        @Override
        public long allocatedBytes() {
            return 0;
        }
    }

    @Test
    void theCloseWaitsForTheAllocationAndFreesWhatItMade() throws Exception {
        SlowRowsCodec codec = new SlowRowsCodec();
        List<ABatchGoesToTheTransportInsideItsWriteNextTest.StalledCall> calls = new CopyOnWriteArrayList<>();
        BulkEngineWriter writer = ABatchGoesToTheTransportInsideItsWriteNextTest.stalledWriter(codec, timer, calls);
        CompletableFuture<TableBufferRoot> producer = CompletableFuture.supplyAsync(() -> writer.tableBufferRoot(10));
        assertTrue(codec.making.await(30, TimeUnit.SECONDS), "the producer started making its batch");

        Thread closer = new Thread(writer::close, "closer");
        closer.start();
        // The close either ends at once (it did not wait for the allocation) or waits for the producer.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (closer.getState() != Thread.State.TERMINATED && closer.getState() != Thread.State.TIMED_WAITING
                && closer.getState() != Thread.State.WAITING) {
            assertTrue(System.nanoTime() < deadline, "the close neither ended nor waited: " + closer.getState());
            Thread.onSpinWait();
        }
        assertEquals(null, codec.madeAtClose.get(), "the rows were closed while the producer was still making them");

        codec.finish.countDown();
        producer.get(30, TimeUnit.SECONDS);
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(closer.isAlive(), "the close ended once the producer had made its batch");
        assertEquals(Boolean.TRUE, codec.madeAtClose.get(), "the close freed the batch the producer made");
    }
}
