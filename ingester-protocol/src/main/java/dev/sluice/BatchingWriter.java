package dev.sluice;

import dev.sluice.data.InvalidDataException;
import dev.sluice.data.Table;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Coalesces rows written one at a time, from any number of threads, into large batches per table, and sends
 * them in the background. Obtain one from {@link GreptimeDB#batchingWriter(BatchingWriter.Config)}.
 *
 * <p>A batch is sent when it reaches {@code maxBatchRows} or {@code maxBatchBytes}, or {@code flushInterval}
 * after its first row (a timer, whatever else happens), whichever comes first. {@code write} checks the row
 * on the caller's thread (bad rows throw {@link InvalidDataException} and are not buffered) and returns the
 * future of the batch the row joined: rows of one batch share one future, so tracking costs nothing per row.
 * Buffered rows are bounded by {@code maxBufferedRows}: when full, {@code write} waits up to
 * {@code bufferTimeout} for room, then throws {@link LimitExceededException}. Rows are never dropped: each
 * batch future completes normally once the server acknowledged it, or exceptionally with a
 * {@link BatchWriteException}.
 *
 * <p>Close the writer before the program ends ({@link #close()} flushes). A writer still open when the JVM exits
 * is closed by the client's exit hook, which sends its rows within a bounded time and logs a warning (see
 * {@link GreptimeDB}); a JVM that is killed runs no hook, and the rows in its buffers are lost.
 */
public interface BatchingWriter extends AutoCloseable {
    /**
     * Buffers a row.
     *
     * @param schema the row's table (rows of equal schemas share batches; a table may gain columns between rows)
     * @param row one value per column
     * @return the future of the batch the row joined
     * @throws InvalidDataException for a bad row
     * @throws LimitExceededException when the buffer stayed full for {@code bufferTimeout}
     * @throws IllegalStateException after {@link #close()}, or when called from inside a typed write's row
     *     lambda for the same table (that row is still open; nothing of this one is buffered)
     */
    CompletableFuture<Void> write(TableSchema schema, Object... row);

    /**
     * Buffers a row given value by value, with no {@code Object[]} and no boxing: {@code row} receives the open
     * batch's typed appender, sets the row's columns (by index: look indexes up once with
     * {@link RowAppender#columnIndex}) and returns; the row is then ended. Do not call {@code endRow} or
     * {@code cancelRow} from it. It runs on the caller's thread while that table's open batch is held: keep it
     * short, and do not write to this writer from inside it. Values are checked as {@link #write(TableSchema,
     * Object...)} checks them.
     *
     * <pre>{@code
     * int host = cpu.indexOf("host"), usage = cpu.indexOf("usage"), ts = cpu.indexOf("ts");
     * writer.write(cpu, r -> r.setString(host, h).setDouble(usage, u).setLong(ts, millis));
     * }</pre>
     *
     * @param schema the row's table
     * @param row sets the row's values on the appender it is given
     * @return the future of the batch the row joined
     * @throws InvalidDataException for a bad row (nothing of it is buffered)
     * @throws LimitExceededException when the buffer stayed full for {@code bufferTimeout}
     * @throws IllegalStateException after {@link #close()}, or when called from inside another row's
     *     {@code row} lambda for the same table (that row is still open; nothing of this one is buffered)
     */
    CompletableFuture<Void> write(TableSchema schema, java.util.function.Consumer<RowAppender> row);

    /**
     * Buffers a whole table as one unit (sent as its own batch, or coalesced with other tables on the regular path).
     *
     * @param table the table (completed by this call)
     * @return the future of its batch
     * @throws LimitExceededException when the buffer stayed full for {@code bufferTimeout}
     */
    CompletableFuture<Void> write(Table table);

    /**
     * Sends everything buffered now and waits until every row written before this call is acknowledged or failed.
     *
     * @param timeout the longest wait
     * @return true when all of it was acknowledged, false when some batches failed
     * @throws LimitExceededException when the wait timed out
     */
    boolean flush(Duration timeout);

    /**
     * Counts rows buffered or in flight.
     *
     * @return rows not yet acknowledged or failed
     */
    long pendingRows();

    /**
     * Counts rows the server acknowledged.
     *
     * @return acknowledged rows
     */
    long ackedRows();

    /**
     * Counts rows of failed batches.
     *
     * @return failed rows
     */
    long failedRows();

    /**
     * Flushes (waiting up to the client's default timeout), then stops the writer and releases its memory.
     * Rows that could not be delivered have their futures failed; none is left pending.
     */
    @Override
    void close();

    /** Which path batches travel on. */
    enum Path {
        /** Request-response {@code Handle} calls; several tables may share one request. */
        Regular,
        /** One Arrow Flight bulk stream per table (the table is created first if missing). */
        Bulk
    }

    /**
     * Settings of a batching writer.
     *
     * @param maxBatchRows rows that make a batch full (default 10,000)
     * @param maxBatchBytes approximate bytes that make a batch full (default 8 MiB)
     * @param flushInterval longest time a row waits in a batch before it is sent (default 200 ms)
     * @param maxInFlightBatches batches sent and not yet answered (default 4)
     * @param maxBufferedRows rows buffered or in flight before writers wait (default 1,000,000)
     * @param bufferTimeout longest wait for buffer room (default 10 s)
     * @param path regular (default) or bulk
     * @param context hints and compression of every batch
     * @param orderedPerTable regular path: at most one batch of a table in flight at a time (default false),
     *     so the server receives a table's batches in the order they were sealed, retries included: a batch
     *     retried by the client can never land after a later batch of its table, and with last-write-wins
     *     tables the later write of a row stays. Costs a table's concurrency (other tables still overlap).
     *     The bulk path keeps order per stream (one per table schema) by itself and ignores this.
     */
    record Config(int maxBatchRows, long maxBatchBytes, Duration flushInterval, int maxInFlightBatches,
                  long maxBufferedRows, Duration bufferTimeout, Path path, Context context, boolean orderedPerTable) {
        /**
         * Creates settings without per-table ordering.
         *
         * @param maxBatchRows rows that make a batch full
         * @param maxBatchBytes approximate bytes that make a batch full
         * @param flushInterval longest time a row waits in a batch before it is sent
         * @param maxInFlightBatches batches sent and not yet answered
         * @param maxBufferedRows rows buffered or in flight before writers wait
         * @param bufferTimeout longest wait for buffer room
         * @param path regular or bulk
         * @param context hints and compression of every batch
         */
        public Config(int maxBatchRows, long maxBatchBytes, Duration flushInterval, int maxInFlightBatches,
                      long maxBufferedRows, Duration bufferTimeout, Path path, Context context) {
            this(maxBatchRows, maxBatchBytes, flushInterval, maxInFlightBatches, maxBufferedRows, bufferTimeout, path,
                    context, false);
        }

        /** Checks the values. */
        public Config {
            if (maxBatchRows < 1 || maxBatchBytes < 1 || maxInFlightBatches < 1 || maxBufferedRows < maxBatchRows) {
                throw new IllegalArgumentException("batch sizes and limits must be positive, and maxBufferedRows at"
                        + " least maxBatchRows");
            }
            Objects.requireNonNull(flushInterval, "flushInterval");
            Objects.requireNonNull(bufferTimeout, "bufferTimeout");
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(context, "context");
            if (flushInterval.isNegative() || flushInterval.isZero()) {
                throw new IllegalArgumentException("flushInterval must be positive");
            }
        }

        /**
         * Returns the defaults.
         *
         * @return the default config
         */
        public static Config defaults() {
            return new Config(10_000, 8L << 20, Duration.ofMillis(200), 4, 1_000_000, Duration.ofSeconds(10),
                    Path.Regular, Context.newDefault());
        }

        /**
         * Copies with another batch size.
         *
         * @param rows rows per batch
         * @return a new config
         */
        public Config withMaxBatchRows(int rows) {
            return new Config(rows, maxBatchBytes, flushInterval, maxInFlightBatches, Math.max(maxBufferedRows, rows),
                    bufferTimeout, path, context, orderedPerTable);
        }

        /**
         * Copies with another flush interval.
         *
         * @param interval the interval
         * @return a new config
         */
        public Config withFlushInterval(Duration interval) {
            return new Config(maxBatchRows, maxBatchBytes, interval, maxInFlightBatches, maxBufferedRows, bufferTimeout,
                    path, context, orderedPerTable);
        }

        /**
         * Copies with another buffer bound and wait.
         *
         * @param rows rows buffered or in flight
         * @param timeout the longest wait for room
         * @return a new config
         */
        public Config withBuffer(long rows, Duration timeout) {
            return new Config(maxBatchRows, maxBatchBytes, flushInterval, maxInFlightBatches, rows, timeout, path, context,
                    orderedPerTable);
        }

        /**
         * Copies with another path.
         *
         * @param path regular or bulk
         * @return a new config
         */
        public Config withPath(Path path) {
            return new Config(maxBatchRows, maxBatchBytes, flushInterval, maxInFlightBatches, maxBufferedRows,
                    bufferTimeout, path, context, orderedPerTable);
        }

        /**
         * Copies with another in-flight limit.
         *
         * @param batches batches sent and unanswered
         * @return a new config
         */
        public Config withMaxInFlightBatches(int batches) {
            return new Config(maxBatchRows, maxBatchBytes, flushInterval, batches, maxBufferedRows, bufferTimeout,
                    path, context, orderedPerTable);
        }

        /**
         * Copies with or without per-table ordering.
         *
         * @param ordered true for at most one batch of a table in flight (regular path)
         * @return a new config
         */
        public Config withOrderedPerTable(boolean ordered) {
            return new Config(maxBatchRows, maxBatchBytes, flushInterval, maxInFlightBatches, maxBufferedRows,
                    bufferTimeout, path, context, ordered);
        }

        /**
         * Copies with another context.
         *
         * @param context hints and compression
         * @return a new config
         */
        public Config withContext(Context context) {
            return new Config(maxBatchRows, maxBatchBytes, flushInterval, maxInFlightBatches, maxBufferedRows,
                    bufferTimeout, path, context, orderedPerTable);
        }
    }
}
