package dev.sluice.bulk.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.SharesJvm;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BatchGuard;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.write.Compression;
import io.grpc.Drainable;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;

/**
 * A batch below the size kept in its own vectors is packed into one buffer of the writer's Arrow memory and handed
 * to the transport whole: no copy of it on the heap, the same bytes as a copy, intact for a resend while the
 * vectors fill with the next rows, and its memory back to the writer once both the owner and the transport let go.
 */
@SharesJvm
class SmallBatchesReachTheTransportWithoutAHeapCopyTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("small_batches")
            .addTag("host", DataType.String).addField("cpu", DataType.Float64)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();
    static final int ROWS = 1_000;

    static final BatchGuard NO_GUARD = new BatchGuard() {
        @Override
        public void enter() {
        }

        @Override
        public void exit(int rows) {
        }
    };

    static void fill(TableBufferRoot rows, int from) {
        for (int i = from; i < from + ROWS; i++) {
            rows.addRow("host-" + (i % 100), i * 0.5, 1_700_000_000_000L + i);
        }
    }

    static byte[] send(BulkMessage m) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ((Drainable) m.stream()).drainTo(out);
        return out.toByteArray();
    }

    static ArrowTableCodec codec(BufferAllocator root, DirectHandOff transport) {
        return codec(root, transport, BulkWrite.Config.newBuilder().build());
    }

    static ArrowTableCodec codec(BufferAllocator root, DirectHandOff transport, BulkWrite.Config config) {
        return new ArrowTableCodec(SCHEMA, config, Compression.None, root, transport);
    }

    /** The bytes of a batch of these rows as a transport that takes no memory gets them. */
    static byte[] copied(BufferAllocator root, int from, long requestId) throws IOException {
        ArrowTableCodec codec = codec(root, DirectHandOff.NONE);
        fill(codec.rows(ROWS, NO_GUARD), from);
        BulkMessage m = codec.unload(requestId);
        byte[] bytes = send(m);
        m.release();
        codec.close();
        return bytes;
    }

    @Test
    void aSmallBatchIsHandedOffWholeWithoutAHeapCopyAndStaysIntactForAResend() throws IOException {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        BatchMessageHandOffTest.RecordingHandOff transport = new BatchMessageHandOffTest.RecordingHandOff();
        try (BufferAllocator root = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            byte[] first = copied(root, 0, 1);
            byte[] second = copied(root, ROWS, 2);
            ArrowTableCodec codec = codec(root, transport);
            TableBufferRoot rows = codec.rows(ROWS, NO_GUARD);
            fill(rows, 0);
            codec.unload(0).release(); // a first batch loads and links what unloading uses
            codec.reset();
            fill(rows, 0);
            long before = threads.getCurrentThreadAllocatedBytes();
            BulkMessage m = codec.unload(1);
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertTrue(m.size() < ArrowTableCodec.KEEP_IN_ARROW_BYTES, "a small batch: " + m.size());
            assertTrue(allocated < m.size() / 2, "unloading a " + m.size() + "-byte batch allocated " + allocated
                    + " bytes of heap");

            assertArrayEquals(first, send(m));
            assertEquals(List.of(m.size()), transport.sizes, "the whole message handed off as one buffer");
            fill(rows, ROWS); // the vectors take the next rows while the batch waits for its answer
            BulkMessage next = codec.unload(2);
            assertArrayEquals(first, send(m), "resent from the same memory, unchanged by the next rows");
            assertArrayEquals(second, send(next));

            long vectors = codec.allocatedBytes();
            m.release();
            next.release();
            assertEquals(vectors, codec.allocatedBytes(), "held while the transport reads it");
            transport.giveBackAll();
            fill(rows, 0);
            BulkMessage again = codec.unload(1);
            fill(rows, ROWS);
            BulkMessage againNext = codec.unload(2);
            assertEquals(vectors, codec.allocatedBytes(), "given back to the writer's memory: the next batches"
                    + " are packed into it");
            assertArrayEquals(first, send(again));
            assertArrayEquals(second, send(againNext));
            again.release();
            againNext.release();
            transport.giveBackAll();
            codec.close();
            assertEquals(0, root.getAllocatedMemory());
        }
    }

    @Test
    void aSmallBatchTheTransportStillHoldsKeepsItsMemoryPastItsReleaseAndTheRowsFreedUntilTheTransportLetsGo()
            throws IOException {
        BatchMessageHandOffTest.RecordingHandOff transport = new BatchMessageHandOffTest.RecordingHandOff();
        try (BufferAllocator root = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableCodec codec = codec(root, transport);
            fill(codec.rows(ROWS, NO_GUARD), 0);
            BulkMessage m = codec.unload(1);
            AtomicInteger freed = new AtomicInteger();
            m.whenFreed(freed::incrementAndGet);
            send(m);
            m.release();
            codec.closeRows();
            assertEquals(1, transport.held.size(), "held by the transport");
            long left = codec.allocatedBytes();
            assertTrue(left >= m.size() && left < 2L * m.size(), "only the message's memory is left, still read: "
                    + left);
            assertEquals(0, freed.get());
            transport.giveBackAll();
            assertEquals(1, freed.get(), "freed once, when the transport let go");
            assertEquals(0, codec.allocatedBytes());
            codec.close();
            assertEquals(0, root.getAllocatedMemory());
        }
    }

    @Test
    void aSmallBatchIsPackedIntoTheMemoryOfTheLastOneTheTransportAndTheWriterLetGoOf() throws IOException {
        BatchMessageHandOffTest.RecordingHandOff transport = new BatchMessageHandOffTest.RecordingHandOff();
        try (BufferAllocator root = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            byte[] second = copied(root, ROWS, 2);
            ArrowTableCodec codec = codec(root, transport);
            TableBufferRoot rows = codec.rows(ROWS, NO_GUARD);
            fill(rows, 0);
            BulkMessage m = codec.unload(1);
            send(m);
            long withFirst = codec.allocatedBytes();
            m.release();
            transport.giveBackAll();
            assertEquals(withFirst, codec.allocatedBytes(), "the answered batch's memory kept for the next one");
            fill(rows, ROWS);
            BulkMessage next = codec.unload(2);
            assertEquals(withFirst, codec.allocatedBytes(), "the next batch packed into it: nothing allocated");
            assertArrayEquals(second, send(next));
            next.release();
            transport.giveBackAll();
            codec.close();
            assertEquals(0, root.getAllocatedMemory());
        }
    }

    @Test
    void aWriterWithNoRoomInItsMemoryStillSendsItsSmallBatchesByCopy() throws IOException {
        BatchMessageHandOffTest.RecordingHandOff transport = new BatchMessageHandOffTest.RecordingHandOff();
        try (BufferAllocator root = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            byte[] first = copied(root, 0, 1);
            ArrowTableCodec probe = codec(root, DirectHandOff.NONE);
            fill(probe.rows(ROWS, NO_GUARD), 0);
            long vectors = probe.allocatedBytes();
            probe.close();
            // A cap that holds the vectors and not one more batch beside them.
            ArrowTableCodec codec = codec(root, transport, BulkWrite.Config.newBuilder()
                    .allocatorMaxAllocation(vectors).build());
            fill(codec.rows(ROWS, NO_GUARD), 0);
            BulkMessage m = codec.unload(1);
            assertArrayEquals(first, send(m));
            assertEquals(List.of(), transport.sizes, "copied, nothing handed off");
            m.release();
            codec.close();
            assertEquals(0, root.getAllocatedMemory());
        }
    }
}
