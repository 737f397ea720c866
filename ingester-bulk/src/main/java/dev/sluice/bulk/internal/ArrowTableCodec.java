package dev.sluice.bulk.internal;

import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BatchGuard;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.internal.bulk.spi.TableCodec;
import dev.sluice.write.Compression;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * One bulk writer's Arrow batches: rows built in Arrow vectors from the writer's allocator (a capped child of the
 * client's), unloaded into Flight messages with Arrow IPC compression, sent from Arrow memory.
 */
final class ArrowTableCodec implements TableCodec {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(dev.sluice.bulk.BulkStreamWriter.class);
    /**
     * Batches at least this large stay in the Arrow memory they were built in until answered, and the next rows get
     * fresh buffers; smaller ones are copied once into one buffer of the writer's memory (handed to the transport
     * whole) and the vectors refilled. Fresh vectors cost a fixed price per batch (allocation, zeroing, cold memory)
     * that only large batches amortize: on the 1,000-row metrics benchmark (about 100 KB a batch) keeping every batch
     * cost 25% of bulk throughput and 20% more client CPU than a copy, while a 65,536-row logs batch (about 150 MB)
     * copied to the heap cost over 1 GiB of heap.
     */
    static final int KEEP_IN_ARROW_BYTES = 4 << 20;
    /**
     * How long {@link #close()} waits for the transport to let go of batch memory handed to it (a cancelled call's
     * queued writes are dropped on netty's event loop, normally within milliseconds).
     */
    static final long HAND_BACK_WAIT_MS = 5_000;
    private final TableSchema schema;
    private final BulkWrite.Config config;
    private final BufferAllocator allocator;
    private final CompressionCodec codec;
    private final DirectHandOff handOff;
    private final BulkMessage schemaMessage;
    private ArrowTableBufferRoot root;
    /** Guards the two fields below; notified whenever a batch's memory is freed. */
    private final Object memoryLock = new Object();
    /** Batches whose Arrow memory is not freed yet: kept for a resend, or still read by the transport. */
    private int unfreed;
    /** Set when close found the transport still reading batches: the last one freed closes the allocator. */
    private boolean closeWhenFreed;

    /**
     * Opens a writer's batches.
     *
     * @param schema the table's schema
     * @param config writer settings (the allocator's reservation and cap)
     * @param compression Zstd and Lz4 compress the batches' buffers; anything else leaves them as they are
     * @param clientRoot the client's Arrow root allocator; the writer takes a capped child of it
     * @param handOff takes large buffers without a copy where the transport can
     */
    ArrowTableCodec(TableSchema schema, BulkWrite.Config config, Compression compression, BufferAllocator clientRoot,
                    DirectHandOff handOff) {
        this.schema = schema;
        this.config = config;
        this.handOff = handOff;
        this.schemaMessage = new FlightMessages.HeapMessage(
                FlightMessages.schemaMessage(schema.tableName(), ArrowTypes.fields(schema)));
        this.allocator = clientRoot.newChildAllocator("bulk-" + schema.tableName(),
                config.allocatorInitReservation(), config.allocatorMaxAllocation());
        this.codec = compression == Compression.Zstd
                ? CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD)
                : compression == Compression.Lz4
                ? Lz4FrameCodec.INSTANCE
                : NoCompressionCodec.INSTANCE;
    }

    @Override
    public BulkMessage schemaMessage() {
        return schemaMessage;
    }

    @Override
    public TableBufferRoot rows(int capacity, BatchGuard guard) {
        if (root == null) {
            root = new ArrowTableBufferRoot(schema, allocator, capacity, config.allocatorMaxAllocation(), guard);
        }
        return root;
    }

    @Override
    public BulkMessage unload(long requestId) {
        try {
            ArrowRecordBatch batch = root.unload(codec);
            FlightMessages.BatchMessage m;
            try {
                m = FlightMessages.batchMessage(batch, requestId, handOff, this::messageFreed);
                messageCreated();
            } catch (RuntimeException e) {
                batch.close();
                throw e;
            }
            try {
                if (m.size() >= KEEP_IN_ARROW_BYTES && root.renew()) {
                    // The batch holds the vectors' memory now (the next rows go to fresh buffers): sent from it, and
                    // kept until answered so that a broken stream can resend it without a copy.
                    return m;
                }
                // A small batch, or the allocator's cap leaves no room for fresh buffers: the same vectors refilled,
                // the batch copied once into one buffer the transport takes whole, or to the heap when the cap
                // leaves no room for that either.
                BulkMessage copy = pack(m);
                m.release();
                root.reset();
                return copy;
            } catch (RuntimeException e) {
                m.release();
                throw e;
            }
        } catch (RuntimeException e) {
            root.reset();
            throw e;
        }
    }

    private BulkMessage pack(FlightMessages.BatchMessage m) {
        try {
            FlightMessages.PackedMessage packed = m.pack(allocator, this::messageFreed);
            messageCreated();
            return packed;
        } catch (OutOfMemoryException e) {
            return new FlightMessages.HeapMessage(m.toBytes());
        }
    }

    @Override
    public void reset() {
        if (root != null) {
            root.reset();
        }
    }

    @Override
    public long allocatedBytes() {
        return allocator.getAllocatedMemory();
    }

    /**
     * Frees the vectors, then closes the allocator once no batch holds memory. Buffers the transport still reads
     * (handed to netty and not yet written or dropped by the cancelled call) are waited for, at most
     * {@link #HAND_BACK_WAIT_MS}; if some are still out then, the last one back closes the allocator.
     */
    @Override
    public void close() {
        if (root != null) {
            root.close();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HAND_BACK_WAIT_MS);
        synchronized (memoryLock) {
            boolean interrupted = false;
            long left;
            while (unfreed > 0 && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(memoryLock, left);
                } catch (InterruptedException ie) {
                    interrupted = true;
                    break;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (unfreed > 0) {
                closeWhenFreed = true;
                LOG.warn("bulk writer for '{}' closed while the transport still holds {} of its batches; their memory"
                        + " is freed when it lets go", schema.tableName(), unfreed);
                return;
            }
        }
        allocator.close();
    }

    private void messageCreated() {
        synchronized (memoryLock) {
            unfreed++;
        }
    }

    /** A batch's memory is freed (by its owner's release or by the transport letting go, on any thread). */
    private void messageFreed() {
        boolean closeNow;
        synchronized (memoryLock) {
            unfreed--;
            memoryLock.notifyAll();
            closeNow = unfreed == 0 && closeWhenFreed;
            closeWhenFreed = false;
        }
        if (closeNow) {
            allocator.close();
        }
    }
}
