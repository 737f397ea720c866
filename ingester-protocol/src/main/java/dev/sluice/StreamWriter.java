package dev.sluice;

import dev.sluice.write.WriteOp;
import java.util.concurrent.CompletableFuture;

/**
 * A long-lived write stream: values are sent as they are written, without waiting for answers, and the
 * server answers once, when the stream is {@linkplain #completed() completed}.
 *
 * <p>Recovery contract: nothing written to a stream is confirmed until {@link #completed()} succeeds. When the
 * stream breaks, every later {@link #write} throws {@link StreamWriteException} with the cause, and the
 * exception (from {@code write} or from the {@code completed()} future) lists the tables sent but not
 * confirmed: messages before the failing one may have been committed, so resending them is safe only on tables
 * without {@code append_mode}. A table that encodes to more than 4 MiB travels as several messages of
 * consecutive rows (the server still answers once, for the whole stream), so part of it may have been committed.
 *
 * @param <V> what is written (tables)
 * @param <R> the stream's final answer
 */
public interface StreamWriter<V, R> extends AutoCloseable {
    /**
     * Sends a value as an insert. Returns once the value is queued for sending (it blocks, boundedly, only when
     * the stream's send buffer is full or a rate limit applies).
     *
     * @param value the value
     * @return this writer
     * @throws StreamWriteException when the stream is broken, completed or cancelled, or the send buffer stayed
     *     full past the client's timeout
     */
    StreamWriter<V, R> write(V value);

    /**
     * Sends a value as an insert or a delete.
     *
     * @param value the value
     * @param op insert or delete
     * @return this writer
     * @throws StreamWriteException as for {@link #write(Object)}
     */
    StreamWriter<V, R> write(V value, WriteOp op);

    /**
     * Ends the stream and returns the server's answer for all of it.
     *
     * @return completes with the total, or exceptionally with a {@link StreamWriteException}
     */
    CompletableFuture<R> completed();

    /**
     * Counts the values written so far (none is confirmed before {@link #completed()} succeeds); a large table
     * counts once, however many messages carry it.
     *
     * @return values written
     */
    int sentMessages();

    /**
     * Counts how often the stream was reopened and replayed after a failure (see
     * {@code GreptimeDB.streamWriter(double, Context, boolean)}).
     *
     * @return replays
     */
    int replays();

    /**
     * Aborts the stream; the {@link #completed()} future fails. What the server already received may be committed.
     */
    void cancel();

    /**
     * Cancels the stream unless {@link #completed()} was called (its future then fails, like after
     * {@link #cancel()}); a completed stream is left to finish. For try-with-resources: call {@code completed()}
     * inside the block and wait on its future there.
     */
    @Override
    void close();
}
