package dev.sluice.bulk.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.SharesJvm;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.internal.bulk.spi.BulkMessage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * A writer keeps the packing memory of as many small batches as it may have unanswered: once warm, a writer that
 * always has that many batches in flight packs each into memory an answered one gave back, taking nothing from
 * its allocator, and frees all of it when closed.
 */
@SharesJvm
class SmallBatchesInFlightReuseTheirPackingMemoryTest {
    private static final int IN_FLIGHT = 5;

    /** Counts the buffers an allocator and its children hand out. */
    private static final class CountingListener implements AllocationListener {
        final AtomicInteger allocations = new AtomicInteger();

        @Override
        public void onAllocation(long size) {
            allocations.incrementAndGet();
        }
    }

    /** Sends {@link #IN_FLIGHT} batches, all held unanswered, then answers them all; checks their bytes. */
    private static void roundOfBatches(ArrowTableCodec codec, TableBufferRoot rows,
                                       BatchMessageHandOffTest.RecordingHandOff transport, byte[] expected)
            throws IOException {
        List<BulkMessage> inFlight = new ArrayList<>();
        for (int i = 0; i < IN_FLIGHT; i++) {
            SmallBatchesReachTheTransportWithoutAHeapCopyTest.fill(rows, 0);
            BulkMessage m = codec.unload(7);
            assertArrayEquals(expected, SmallBatchesReachTheTransportWithoutAHeapCopyTest.send(m));
            inFlight.add(m);
        }
        inFlight.forEach(BulkMessage::release);
        transport.giveBackAll();
    }

    @Test
    void aWarmWriterWithEveryBatchSlotInUseTakesNoNewMemoryAndFreesItAllWhenClosed() throws IOException {
        CountingListener listener = new CountingListener();
        BatchMessageHandOffTest.RecordingHandOff transport = new BatchMessageHandOffTest.RecordingHandOff();
        try (BufferAllocator root = new RootAllocator(listener, Long.MAX_VALUE)) {
            byte[] expected = SmallBatchesReachTheTransportWithoutAHeapCopyTest.copied(root, 0, 7);
            ArrowTableCodec codec = new ArrowTableCodec(SmallBatchesReachTheTransportWithoutAHeapCopyTest.SCHEMA,
                    BulkWrite.Config.newBuilder().maxInFlightRequests(IN_FLIGHT).build(),
                    dev.sluice.write.Compression.None, root, transport);
            TableBufferRoot rows = codec.rows(SmallBatchesReachTheTransportWithoutAHeapCopyTest.ROWS,
                    SmallBatchesReachTheTransportWithoutAHeapCopyTest.NO_GUARD);
            roundOfBatches(codec, rows, transport, expected);
            long warm = codec.allocatedBytes();
            listener.allocations.set(0);
            for (int round = 0; round < 3; round++) {
                roundOfBatches(codec, rows, transport, expected);
            }
            assertEquals(0, listener.allocations.get(), "buffers taken from the allocator once warm");
            assertEquals(warm, codec.allocatedBytes(), "the writer's memory once warm");
            assertTrue(warm > IN_FLIGHT * (long) expected.length, "the batches' memory kept: " + warm);
            codec.closeRows();
            assertEquals(0, codec.allocatedBytes(), "every kept buffer freed with the rows");
            codec.close();
            assertEquals(0, root.getAllocatedMemory());
        }
    }
}
