package dev.sluice.internal.send;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import dev.sluice.write.RetryPolicy;

/** One client's bulk writers: opens them, and owns the off-heap memory they share. */
public interface BulkWriters {
    /**
     * Opens the DoPut stream of a writer on the next healthy endpoint. The table exists (or is left to the server).
     *
     * @param schema the table's schema, already checked bulk-writable
     * @param config writer settings
     * @param compression None, Zstd and Lz4 as Arrow IPC compression; Gzip as gRPC message compression
     * @param policy how batches are resent after retryable failures
     * @param appendMode whether the table is written in append mode (no resend after an ambiguous outcome)
     * @return the writer
     */
    BulkStreamWriter open(TableSchema schema, BulkWrite.Config config, Compression compression, RetryPolicy policy,
                          boolean appendMode);

    /**
     * Returns the off-heap bytes the client's bulk writers hold now.
     *
     * @return allocated bytes
     */
    long allocatedBytes();

    /**
     * Loads what the first writer would load (Arrow's memory, every column type's vector, the IPC messages) with
     * throwaway objects whose memory is freed before returning; sends nothing.
     */
    void prepare();

    /** Frees the memory kept for reuse, and keeps none from now on (the client is shutting down). */
    void trim();

    /**
     * Fails every batch still unanswered in the client's open writers, with the reason, and ends their streams: the
     * client shuts down, and a resend waiting on its stopped timer would never run.
     *
     * @param why the reason, given in each batch's failure
     */
    void failUnanswered(String why);
}
