package dev.sluice.bulk.internal;

import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BatchGuard;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.internal.bulk.spi.TableCodec;
import dev.sluice.write.Compression;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.AllocationOutcome;
import org.apache.arrow.memory.ArrowBuf;
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
    /**
     * Batches whose body is at least this large stay in the Arrow memory they were built in until answered, and the next rows get
     * fresh buffers; smaller ones are copied once into one buffer of the writer's memory (handed to the transport
     * whole) and the vectors refilled. Fresh vectors cost a fixed price per batch (allocation, zeroing, cold memory)
     * that only large batches amortize: on the 1,000-row metrics benchmark (about 100 KB a batch) keeping every batch
     * cost 25% of bulk throughput and 20% more client CPU than a copy, while a 65,536-row logs batch (about 150 MB)
     * copied to the heap cost over 1 GiB of heap.
     */
    static final int KEEP_IN_ARROW_BYTES = 4 << 20;
    private final TableSchema schema;
    private final BulkWrite.Config config;
    private final BufferAllocator allocator;
    private final CompressionCodec codec;
    private final DirectHandOff handOff;
    private final BulkMessage schemaMessage;
    private ArrowTableBufferRoot root;
    /**
     * The buffers of the last small batches that both the transport and the writer let go of, kept for the next
     * small batches: packing then takes no allocation from (and gives nothing back to) the allocator's pool, which
     * the answering thread and the producer would otherwise each take a lock of, per batch. As many are kept as
     * batches can be unanswered at once, plus the one being packed; an empty slot is null.
     */
    private final AtomicReferenceArray<ArrowBuf> spares;
    private final LongFunction<ArrowBuf> packMemory = this::packMemory;
    private final Consumer<ArrowBuf> giveBack = this::giveBack;
    /** Set once the rows are closed: buffers given back from then on are freed. */
    private volatile boolean rowsClosed;

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
        this.spares = new AtomicReferenceArray<>(config.maxInFlightRequests() + 1);
        this.schemaMessage = BulkMessage.ofBytes(
                FlightMessages.schemaMessage(schema.tableName(), ArrowTypes.fields(schema)));
        // Spare packing buffers count against the writer's cap: when the cap refuses an allocation (the rows'
        // vectors growing, or a batch being packed), the spares are freed and the allocation tried once more, so
        // that memory kept for speed never refuses a row that fits.
        this.allocator = clientRoot.newChildAllocator("bulk-" + schema.tableName(), new AllocationListener() {
            @Override
            public boolean onFailedAllocation(long size, AllocationOutcome outcome) {
                return freeSpares();
            }
        }, config.allocatorInitReservation(), config.allocatorMaxAllocation());
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
    public long sizeBound() {
        int rows = root == null ? 0 : root.rowCount();
        return rows == 0 ? 0 : FlightMessages.sizeBound(root.vectors(), rows, codec != NoCompressionCodec.INSTANCE);
    }

    @Override
    public BulkMessage unload(long requestId) {
        if (codec == NoCompressionCodec.INSTANCE) {
            // A small uncompressed batch is written from its vectors straight into the packing buffer.
            BulkMessage packed;
            try {
                packed = FlightMessages.packedMessage(root.completedVectors(), root.rowCount(), requestId,
                        KEEP_IN_ARROW_BYTES, packMemory, giveBack, handOff);
            } catch (OutOfMemoryException e) {
                packed = null; // no room for the copy: sent as below, from the heap
            } catch (RuntimeException e) {
                root.reset();
                throw e;
            }
            if (packed != null) {
                root.reset();
                return packed;
            }
        }
        ArrowRecordBatch batch;
        try {
            batch = root.unload(codec);
        } catch (RuntimeException e) {
            root.reset();
            throw e;
        }
        boolean kept = false;
        try {
            if (batch.computeBodyLength() >= KEEP_IN_ARROW_BYTES && root.renew()) {
                // The batch holds the vectors' memory now (the next rows go to fresh buffers): sent from it, and
                // kept until answered so that a broken stream can resend it without a copy.
                BulkMessage m = FlightMessages.batchMessage(batch, requestId, handOff);
                kept = true;
                return m;
            }
            // A small batch, or the allocator's cap leaves no room for fresh buffers: the same vectors refilled,
            // the batch copied once into one buffer the transport takes whole, or to the heap when the cap leaves
            // no room for that either.
            try {
                return FlightMessages.packedMessage(batch, requestId, packMemory, giveBack, handOff);
            } catch (OutOfMemoryException e) {
                return BulkMessage.ofBytes(FlightMessages.toBytes(
                        FlightMessages.batchMessage(batch, requestId, DirectHandOff.NONE)));
            }
        } finally {
            if (!kept) {
                batch.close();
                root.reset();
            }
        }
    }

    /** A buffer of at least {@code size} bytes: a spare one when one is large enough, else a new one. */
    private ArrowBuf packMemory(long size) {
        for (int i = 0, n = spares.length(); i < n; i++) {
            if (spares.get(i) == null) {
                continue;
            }
            ArrowBuf kept = spares.getAndSet(i, null);
            if (kept == null) {
                continue;
            }
            if (kept.capacity() >= size) {
                return kept;
            }
            kept.close();
        }
        return allocator.buffer(size);
    }

    /**
     * A packed batch's buffer is no longer read (on any thread): kept as a spare in a free slot, or freed when every
     * slot holds one or the rows are closed.
     */
    private void giveBack(ArrowBuf memory) {
        if (!rowsClosed) {
            for (int i = 0, n = spares.length(); i < n; i++) {
                if (spares.get(i) == null && spares.compareAndSet(i, null, memory)) {
                    if (rowsClosed) { // closed meanwhile: whoever takes a spare last frees it
                        freeSpares();
                    }
                    return;
                }
            }
        }
        memory.close();
    }

    /**
     * Frees every spare buffer; each is taken out of its slot first, so each is freed once.
     *
     * @return whether any was freed
     */
    private boolean freeSpares() {
        boolean freed = false;
        for (int i = 0, n = spares.length(); i < n; i++) {
            ArrowBuf kept = spares.getAndSet(i, null);
            if (kept != null) {
                kept.close();
                freed = true;
            }
        }
        return freed;
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

    @Override
    public void closeRows() {
        rowsClosed = true;
        freeSpares();
        if (root != null) {
            root.close();
        }
    }

    @Override
    public void close() {
        closeRows();
        allocator.close();
    }
}
