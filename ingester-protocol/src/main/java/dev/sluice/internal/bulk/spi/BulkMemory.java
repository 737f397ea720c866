package dev.sluice.internal.bulk.spi;

import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import io.grpc.MethodDescriptor;

/** One client's bulk memory (the root the writers' batches are built in), and the codec's wire method. */
public interface BulkMemory {
    /**
     * Returns the streaming call bulk batches go out on, with the codec's marshalling: {@link BulkMessage}s out,
     * {@link BulkAnswer}s back.
     *
     * @return the method
     */
    MethodDescriptor<BulkMessage, BulkAnswer> method();

    /**
     * Opens the batches of one writer, in memory of its own capped by {@code config.allocatorMaxAllocation()}.
     *
     * @param schema the table's schema, already checked bulk-writable
     * @param config writer settings
     * @param compression None, Zstd and Lz4 are the codec's (Gzip is the transport's: the codec compresses nothing)
     * @return the writer's codec
     */
    TableCodec open(TableSchema schema, BulkWrite.Config config, Compression compression);

    /**
     * Returns the off-heap bytes the client's bulk writers hold now.
     *
     * @return allocated bytes
     */
    long allocatedBytes();

    /**
     * Loads what the first writer would load (the memory layer, every column type, the messages) with throwaway
     * objects whose memory is freed before returning.
     */
    void prepare();

    /** Frees the memory kept for reuse, and keeps none from now on (the client is shutting down). */
    void trim();
}
