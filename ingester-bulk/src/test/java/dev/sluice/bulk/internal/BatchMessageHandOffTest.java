package dev.sluice.bulk.internal;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch message sent with a transport that takes memory: its large buffers go to the transport, everything else
 * is copied around them in order, and its Arrow memory is freed only when both its owner and the transport have
 * let go, exactly once.
 */
@SharesJvm
class BatchMessageHandOffTest {
    static final int ROWS = 100_000; // an 800,000-byte BIGINT buffer (handed off), a 400,000-byte INT one too
    final BufferAllocator allocator = new RootAllocator();
    final AtomicInteger freed = new AtomicInteger();

    /** Appends handed memory to the same byte stream (as gRPC's chain would send it) and keeps its callback. */
    static final class RecordingHandOff implements DirectHandOff {
        final List<Runnable> held = new ArrayList<>();
        final List<Integer> sizes = new ArrayList<>();
        boolean take = true;

        @Override
        public boolean handOff(OutputStream target, ByteBuffer memory, Runnable released) {
            if (!take) {
                return false;
            }
            assertTrue(memory.isDirect());
            byte[] b = new byte[memory.remaining()];
            memory.duplicate().get(b);
            try {
                target.write(b);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            held.add(released);
            sizes.add(b.length);
            return true;
        }

        void giveBackAll() {
            List<Runnable> r = new ArrayList<>(held);
            held.clear();
            r.forEach(Runnable::run);
        }
    }

    final RecordingHandOff transport = new RecordingHandOff();

    @AfterEach
    void noLeak() {
        allocator.close();
    }

    BulkMessage message() {
        try (VectorSchemaRoot root = VectorSchemaRoot.of(new BigIntVector("ts", allocator), new IntVector("v", allocator))) {
            BigIntVector ts = (BigIntVector) root.getVector(0);
            IntVector v = (IntVector) root.getVector(1);
            ts.allocateNew(ROWS);
            v.allocateNew(ROWS);
            for (int i = 0; i < ROWS; i++) {
                ts.set(i, 1_700_000_000_000L + i);
                if (i % 3 != 0) {
                    v.set(i, i * 7);
                }
            }
            root.setRowCount(ROWS);
            // The record batch holds its own references: the message owns them after the root is closed.
            BulkMessage m = FlightMessages.batchMessage(new VectorUnloader(root).getRecordBatch(), 5, transport);
            m.whenFreed(freed::incrementAndGet);
            return m;
        }
    }

    static byte[] send(BulkMessage m) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        m.writeTo(out);
        return out.toByteArray();
    }

    @Test
    void aHeapCopyAllocatesTheResultAndNoStagingChunk() throws IOException {
        BulkMessage m = message();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        FlightMessages.toBytes(m); // loads and links what the copy uses, so the measured call below allocates only its own data
        long before = threads.getCurrentThreadAllocatedBytes();
        byte[] copied = FlightMessages.toBytes(m);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // The result array (1.2 MB) and a few small objects; before, also a 64 KiB chunk every buffer passed through.
        assertTrue(allocated < copied.length + 16 * 1024, "toBytes allocated " + allocated + " bytes for a "
                + copied.length + "-byte copy");
        assertArrayEquals(copied, send(m), "the copy is byte for byte what a send writes");
        m.release();
        transport.giveBackAll();
        assertEquals(0, allocator.getAllocatedMemory());
    }

    @Test
    void largeBuffersAreHandedOffSmallOnesCopiedAndTheBytesAreTheCopiedMessagesBytes() throws IOException {
        BulkMessage m = message();
        byte[] copied = FlightMessages.toBytes(m);
        assertEquals(0, transport.held.size(), "toBytes hands nothing to the transport");
        byte[] sent = send(m);
        assertArrayEquals(copied, sent);
        assertEquals(m.size(), sent.length);
        // Validity buffers (12,504 bytes) are copied; the two data buffers are handed off.
        assertEquals(List.of(800_000, 400_000), transport.sizes);
        m.release();
        transport.giveBackAll();
        assertEquals(1, freed.get());
        assertEquals(0, allocator.getAllocatedMemory());
    }

    @Test
    void theMemoryOutlivesItsOwnerUntilTheTransportGivesEveryBufferBack() throws IOException {
        BulkMessage m = message();
        long held = allocator.getAllocatedMemory();
        send(m);
        send(m); // a resend of the same batch on a new call, from the same memory
        assertEquals(4, transport.held.size());
        m.release();
        m.release(); // twice is once
        assertEquals(held, allocator.getAllocatedMemory(), "still read by the transport");
        assertEquals(0, freed.get());
        for (int i = 0; i < 3; i++) {
            transport.held.remove(0).run();
            assertEquals(held, allocator.getAllocatedMemory());
        }
        transport.held.remove(0).run();
        assertEquals(0, allocator.getAllocatedMemory());
        assertEquals(1, freed.get());
    }

    @Test
    void theTransportMayGiveBackBeforeTheOwnerReleases() throws IOException {
        BulkMessage m = message();
        send(m);
        transport.giveBackAll();
        assertEquals(0, freed.get(), "kept for a resend until its owner releases it");
        assertArrayEquals(FlightMessages.toBytes(m), send(m), "still intact for a resend");
        transport.giveBackAll();
        m.release();
        assertEquals(1, freed.get());
        assertEquals(0, allocator.getAllocatedMemory());
    }

    @Test
    void aBatchPackedIntoOneBufferIsByteForByteTheBatchSentFromItsVectors() throws IOException {
        try (VectorSchemaRoot root = VectorSchemaRoot.of(new BigIntVector("ts", allocator), new IntVector("v", allocator))) {
            BigIntVector ts = (BigIntVector) root.getVector(0);
            IntVector v = (IntVector) root.getVector(1);
            ts.allocateNew(1000);
            v.allocateNew(1000);
            for (int i = 0; i < 1000; i++) {
                ts.set(i, 1_700_000_000_000L + i);
                if (i % 3 != 0) {
                    v.set(i, i * 7);
                }
            }
            root.setRowCount(1000);
            try (org.apache.arrow.vector.ipc.message.ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
                BulkMessage packed = FlightMessages.packedMessage(batch, 9, allocator, transport);
                BulkMessage fromVectors = FlightMessages.batchMessage(new VectorUnloader(root).getRecordBatch(), 9,
                        DirectHandOff.NONE);
                byte[] expected = send(fromVectors);
                assertArrayEquals(expected, send(packed));
                assertEquals(List.of(expected.length), transport.sizes, "handed off whole, as one buffer");
                fromVectors.release();
                packed.release();
                transport.giveBackAll();
            }
        }
        assertEquals(0, allocator.getAllocatedMemory());
    }

    @Test
    void aTransportThatTakesNothingGetsEveryByteCopied() throws IOException {
        transport.take = false;
        BulkMessage m = message();
        assertArrayEquals(FlightMessages.toBytes(m), send(m));
        m.release();
        assertEquals(1, freed.get());
        assertEquals(0, allocator.getAllocatedMemory());
    }
}
