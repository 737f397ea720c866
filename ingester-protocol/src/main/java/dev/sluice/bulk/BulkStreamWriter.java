package dev.sluice.bulk;

import java.util.concurrent.CompletableFuture;

/**
 * Streams record batches for one table to GreptimeDB over Arrow Flight {@code DoPut}: the fastest way to
 * write large volumes. Obtain one from {@code GreptimeDB.bulkStreamWriter(schema, config, context)}; the implementation comes
 * with the {@code dev.sluice:ingester-bulk} artifact (which brings Arrow), found when the first writer is opened.
 *
 * <pre>{@code
 * try (BulkStreamWriter bulk = db.bulkStreamWriter(schema, config, ctx)) {
 *     TableBufferRoot batch = bulk.tableBufferRoot(65_536);
 *     for (...) { batch.addRow(...); }
 *     CompletableFuture<Integer> acked = bulk.writeNext();   // batch is empty again, refill it
 *     ...
 *     long rows = bulk.completed();                        // waits for every answer
 * }
 * }</pre>
 *
 * <p>Delivery contract. Each {@link #writeNext()} future completes exactly once, with the rows the server wrote
 * for that batch or with a {@link BulkWriteException}. Until a batch is answered the writer keeps it, in the
 * Arrow memory it was built in when it is 4 MiB or larger (the next rows go to fresh vectors; when
 * {@code allocatorMaxAllocation} leaves no room for them, the batch is copied to the heap instead and the vectors
 * refilled), and as a heap copy when smaller (fresh vectors per small batch cost more CPU than the copy). When the stream breaks with a retryable failure (a retryable server error such as rate limiting, a
 * transport failure, a batch with no answer within {@code requestTimeout}, or a stream that ended with
 * batches unanswered), the writer waits the retry policy's backoff, opens a new stream on the next healthy
 * endpoint and resends only the unanswered batches, with their original request ids. The budget is per batch:
 * the policy's attempt count (each stream a batch is queued on is one attempt) and its delivery deadline, counted
 * from {@code writeNext()}. The retry policy is the context's, else the client's ({@code RetryPolicy.newBuilder().build()}:
 * attempts until a 2-minute deadline). A resend after an ambiguous outcome (transport failure, timeout) may
 * write a batch twice, which is harmless on tables without {@code append_mode}; for a context with the
 * {@code append_mode=true} hint such failures are not resent. With {@code RetryPolicy.none()} nothing is resent
 * and a batch's memory is freed as soon as it is sent.
 *
 * <p>A batch kept in Arrow memory is sent from it: its large buffers are handed to gRPC's netty transport, which
 * writes them to the socket without copying them (with gRPC message compression, or another transport, they are
 * copied into the transport's buffers instead). Such a batch's memory is freed when it is answered (or failed)
 * and the transport has written or dropped it, whichever is later.
 *
 * <p>A batch that fails for good (a non-retryable error, or its budget spent) fails the writer: every
 * unanswered batch fails with that cause, and later {@code writeNext()} calls fail at once; open a new writer.
 * At most {@code maxInFlightRequests} batches are unanswered; every batch also takes its size from the client's
 * {@code maxInFlightBytes} budget until answered. {@link #close()} releases all off-heap memory on every path:
 * it cancels the stream and waits up to 5 seconds for the transport to drop the buffers it was still writing
 * (normally milliseconds); any it holds longer are freed, and the writer's allocator closed, when it lets go.
 * Not thread-safe: one producer thread per writer.
 *
 * <p>Threads. A batch is handed to the transport inside its {@code writeNext()}, on the producer's thread (by a
 * transport thread instead when the stream's flow control holds it, or the stream is being reopened). Answers
 * are read on the client's transport threads; futures complete in batch order, and metrics are reported, on the
 * client's {@code callbackExecutor}, never on a transport thread.
 */
public interface BulkStreamWriter extends AutoCloseable {
    /**
     * Returns the writer's batch, creating it on first call. The same batch is returned every time.
     *
     * @param columnBufferSize rows to allocate room for up front (the batch still grows past it)
     * @return the batch
     * @throws BulkWriteException when even the initial vectors exceed {@code allocatorMaxAllocation}
     */
    TableBufferRoot tableBufferRoot(int columnBufferSize);

    /**
     * Sends the batch and empties it for the next rows. Serialization and compression run on the calling thread.
     * Blocks while {@code maxInFlightRequests} batches are unanswered (at most {@code maxBlock}, or
     * not at all with {@code WhenFull.FailFast}) and while the client's byte budget is used up (as the client's
     * limit policy says). When no batch is answered in that time, the future fails with a
     * {@link dev.sluice.LimitExceededException} and nothing is sent or dropped: the batch keeps its rows, and a
     * later {@code writeNext()} sends them.
     *
     * @return completes with the rows the server wrote for this batch, or with a {@link BulkWriteException} (or a
     *     {@link dev.sluice.LimitExceededException}, as above)
     */
    CompletableFuture<Integer> writeNext();

    /**
     * Ends the stream and waits for every outstanding answer, resends included: at most the later of
     * {@code requestTimeout} and the last unanswered batch's delivery deadline, plus one second. The stream takes
     * nothing after it: adding rows to the batch, {@link #tableBufferRoot} and {@link #writeNext()} then throw an
     * {@link IllegalStateException} naming the table; open a new writer for more rows. Rows still in the batch
     * (added after the last {@link #writeNext()}) are sent first as the last batch, waiting for an answer slot as
     * long as completing waits for answers; if they cannot be sent at all, this throws before ending the stream and
     * the rows stay in the batch (call it again, or {@link #close()} to discard them).
     *
     * @return the rows the server acknowledged over the writer's life
     * @throws BulkWriteException when any batch failed or the stream ended in error, or the rows left in the batch
     *     could not be sent
     */
    long completed();

    /**
     * Counts batches the server answered.
     *
     * @return acknowledged batches
     */
    long ackedBatches();

    /**
     * Counts stream reopenings after retryable failures.
     *
     * @return reopenings
     */
    int replays();

    /**
     * Counts batches that failed.
     *
     * @return failed batches
     */
    long failedBatches();

    /**
     * Counts batches sent (or waiting to be resent) and not yet answered.
     *
     * @return unanswered batches
     */
    int inFlight();

    /**
     * Returns the off-heap bytes the writer holds now.
     *
     * @return allocated bytes
     */
    long allocatedBytes();

    /**
     * Cancels the stream if it was not completed (unanswered batches fail) and releases every off-heap buffer.
     * Safe to call more than once.
     */
    @Override
    void close();
}
