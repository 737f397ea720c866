package dev.sluice.bulk.internal;

import dev.sluice.write.Err;

/** What a bulk writer tells its client as batches are answered or fail (for metrics). Called on callback threads. */
public interface BulkEvents {
    /** Ignores everything. */
    BulkEvents NONE = new BulkEvents() {
    };

    /**
     * A batch was acknowledged.
     *
     * @param table the table
     * @param rows rows the server wrote
     * @param bytes the batch's message size
     * @param nanos from sending to the answer
     */
    default void acked(String table, long rows, long bytes, long nanos) {
    }

    /**
     * A batch failed for good.
     *
     * @param err what the server or transport said, or null for the writer's own failures
     */
    default void failed(Err err) {
    }

    /** A broken stream was reopened and its unanswered batches resent. */
    default void replayed() {
    }
}
