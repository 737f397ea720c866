package dev.sluice.internal.bulk.spi;

import dev.sluice.bulk.TableBufferRoot;

/**
 * One bulk writer's batches: the rows it fills, the messages they are unloaded into, and the memory they take.
 * Called by one producer at a time (the writer's {@link BatchGuard} serializes them).
 */
public interface TableCodec {
    /**
     * Returns the message every call starts with: the table and its schema.
     *
     * @return the message; never released
     */
    BulkMessage schemaMessage();

    /**
     * Returns the batch rows are added to, creating it on the first call.
     *
     * @param capacity rows to allocate room for up front (the batch still grows past it)
     * @param guard entered around every change of the batch
     * @return the batch, the same every time
     */
    TableBufferRoot rows(int capacity, BatchGuard guard);

    /**
     * Unloads the batch's rows into one message with the given request id and empties the batch for the next rows;
     * the batch is emptied on failure too. The message holds its memory until it is released and the transport lets
     * go of it; nothing calls back into the codec for that.
     *
     * @param requestId the id the server echoes in its answer
     * @return the message, owned by the caller until {@linkplain BulkMessage#release() released}
     * @throws RuntimeException when the rows cannot be encoded
     */
    BulkMessage unload(long requestId);

    /**
     * Returns the most bytes {@link #unload} can make of the rows the batch holds now, whichever way it encodes them,
     * so that room in the client's budget is taken before the batch is touched.
     *
     * @return a bound on the next message's size; 0 when the batch holds no row
     */
    long sizeBound();

    /** Drops the batch's rows. */
    void reset();

    /** Frees the batch (the writer is closing); messages unloaded from it keep their memory until freed. */
    void closeRows();

    /**
     * Frees the batch and closes the writer's memory; called once every message unloaded from it is freed.
     */
    void close();

    /**
     * Returns the off-heap bytes the writer holds now.
     *
     * @return bytes
     */
    long allocatedBytes();
}
