package dev.sluice;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.Table;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import dev.sluice.write.WhenFull;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Coalesces rows written one at a time, from any number of threads, into large batches per table, and sends
 * them in the background. Obtain one from {@link GreptimeDB#batchingWriter(BatchingWriter.Config, Context)}.
 *
 * <p>A batch is sent when it reaches {@code maxBatchRows} or {@code maxBatchBytes}, or {@code flushInterval}
 * after its first row (a timer, whatever else happens), whichever comes first. {@code write} checks the row
 * on the caller's thread (bad rows throw {@link InvalidDataException} and are not buffered; a row of a table with
 * a column the writer's {@link Path} cannot carry throws the {@link IllegalArgumentException} of
 * {@link Path#check(TableSchema)}, and nothing of that table is buffered) and returns the future of the batch the
 * row joined: rows of one batch share one future, so tracking costs nothing per row.
 * Buffered rows are bounded by {@code maxBufferedRows}: when full, {@code write} waits up to
 * {@code maxBlock} for room (or not at all with {@link WhenFull#FailFast}), then throws
 * {@link LimitExceededException}. Rows are never dropped: each
 * batch future completes normally once the server acknowledged it, or exceptionally with a
 * {@link BatchWriteException}. A batch sent when it is full or due waits for one of the
 * {@code maxInFlightRequests} slots until the retry policy's delivery timeout at most; reaching it (every slot
 * held by batches the server has not answered), it fails unsent, naming the endpoints and the latest failure.
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
     * @throws IllegalArgumentException when the writer's {@link Path} cannot carry a column of the table
     *     ({@link Path#check(TableSchema)}; nothing of it is buffered)
     * @throws LimitExceededException when the buffer stayed full for {@code maxBlock}
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
     * @throws IllegalArgumentException when the writer's {@link Path} cannot carry a column of the table
     *     ({@link Path#check(TableSchema)}; nothing of it is buffered)
     * @throws LimitExceededException when the buffer stayed full for {@code maxBlock}
     * @throws IllegalStateException after {@link #close()}, or when called from inside another row's
     *     {@code row} lambda for the same table (that row is still open; nothing of this one is buffered)
     */
    CompletableFuture<Void> write(TableSchema schema, java.util.function.Consumer<RowAppender> row);

    /**
     * Buffers a whole table as one unit (sent as its own batch, or coalesced with other tables on the regular path).
     *
     * @param table the table (completed by this call)
     * @return the future of its batch
     * @throws IllegalArgumentException when the writer's {@link Path} cannot carry a column of the table
     *     ({@link Path#check(TableSchema)}; nothing of it is buffered)
     * @throws LimitExceededException when the buffer stayed full for {@code maxBlock}
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
     * Sends everything buffered now, waits until every row written before this call is answered, and throws the
     * first batch failure since the previous {@code flushOrThrow} (or since the writer opened). Use it where a
     * program must know that what it wrote is stored (a checkpoint, a commit of offsets): it returns only when
     * every row is acknowledged, with no need to watch the batch futures for their failures.
     *
     * @param timeout the longest wait
     * @throws BatchWriteException the first batch that failed (its {@link BatchWriteException#err()} says why;
     *     later failures are counted in {@link #failedRows()} and failed their own futures); it is reported once
     * @throws LimitExceededException when the wait timed out (nothing is reported then: a later call reports the
     *     failure)
     */
    void flushOrThrow(Duration timeout);

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

    /**
     * Which path batches travel on, and the one rule of which columns each path can carry: every writer that
     * chooses a path asks {@link #firstUncarried(TableSchema)} or {@link #check(TableSchema)}, and the bulk
     * writers refuse with {@link #check(TableSchema)} themselves.
     */
    enum Path {
        /** Request-response {@code Handle} calls; several tables may share one request. Carries every type. */
        Regular,
        /**
         * One Arrow Flight bulk stream per table (the table is created first if missing). Carries no
         * {@link DataType#Json} column (the open-source server stores the bytes unconverted) and no
         * {@link DataType#Vector} column (Sluice has no tested Arrow mapping for them).
         */
        Bulk;

        /**
         * Tells whether this path can carry a column type.
         *
         * @param type the column's type
         * @return false for JSON and Vector on {@link #Bulk}, true otherwise
         */
        public boolean carries(DataType type) {
            return this == Regular || type != DataType.Json && type != DataType.Vector;
        }

        /**
         * Finds the first column, in schema order, this path cannot carry.
         *
         * @param schema the table's schema
         * @return that column, or empty when the path carries every column
         */
        public java.util.Optional<TableSchema.Column> firstUncarried(TableSchema schema) {
            for (TableSchema.Column c : schema.columns()) {
                if (!carries(c.dataType())) {
                    return java.util.Optional.of(c);
                }
            }
            return java.util.Optional.empty();
        }

        /**
         * Refuses a schema this path cannot carry, before anything is created or sent.
         *
         * @param schema the table's schema
         * @throws IllegalArgumentException naming the table, the first column this path cannot carry, its type
         *     and the path that can
         */
        public void check(TableSchema schema) {
            java.util.Optional<TableSchema.Column> c = firstUncarried(schema);
            if (c.isPresent()) {
                DataType t = c.get().dataType();
                throw new IllegalArgumentException("table '" + schema.tableName() + "', column '" + c.get().name()
                        + "': " + t + " columns cannot be bulk written (" + (t == DataType.Json ? "the open-source server stores the bytes unconverted"
                        : "Sluice has no tested Arrow mapping for them") + "); write this table over the regular"
                        + " path (GreptimeDB.write(), or a batching writer with Path.Regular)");
            }
        }
    }

    /**
     * Settings of a batching writer. Immutable; build with {@link #newBuilder()}, change with {@link #toBuilder()}.
     *
     * <table>
     *   <caption>Options</caption>
     *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
     *   <tr><td>maxBatchRows</td><td>10,000</td><td>rows that make a batch full</td></tr>
     *   <tr><td>maxBatchBytes</td><td>8 MiB</td><td>approximate bytes that make a batch full (text counted in
     *       characters)</td></tr>
     *   <tr><td>flushInterval</td><td>200 ms</td><td>longest time a row waits in a batch before it is sent</td></tr>
     *   <tr><td>maxInFlightRequests</td><td>4</td><td>batches sent and not yet answered (bulk: at most 31)</td></tr>
     *   <tr><td>maxBufferedRows</td><td>1,000,000</td><td>rows buffered or in flight before writers wait</td></tr>
     *   <tr><td>whenFull</td><td>Block</td><td>when the buffer is full: wait up to {@code maxBlock} for room, or
     *       fail at once with {@link LimitExceededException}</td></tr>
     *   <tr><td>maxBlock</td><td>10 s</td><td>longest wait for buffer room under {@link WhenFull#Block}</td></tr>
     *   <tr><td>path</td><td>Regular</td><td>{@link Path#Regular} or {@link Path#Bulk}</td></tr>
     *   <tr><td>orderedPerTable</td><td>false</td><td>regular path: at most one batch of a table in flight at a time,
     *       so the server receives a table's batches in the order they were sealed, retries included: a batch
     *       retried by the client can never land after a later batch of its table, and with last-write-wins
     *       tables the later write of a row stays. Costs a table's concurrency (other tables still overlap).
     *       The bulk path keeps order per stream (one per table schema) by itself and ignores this.</td></tr>
     * </table>
     */
    final class Config {
        private final int maxBatchRows;
        private final long maxBatchBytes;
        private final Duration flushInterval;
        private final int maxInFlightRequests;
        private final long maxBufferedRows;
        private final WhenFull whenFull;
        private final Duration maxBlock;
        private final Path path;
        private final boolean orderedPerTable;

        private Config(Builder b) {
            long buffered = b.maxBufferedRows < 0 ? Math.max(1_000_000, b.maxBatchRows) : b.maxBufferedRows;
            if (b.maxBatchRows < 1 || b.maxBatchBytes < 1 || b.maxInFlightRequests < 1) {
                throw new IllegalArgumentException("maxBatchRows, maxBatchBytes and maxInFlightRequests must be"
                        + " positive");
            }
            if (buffered < b.maxBatchRows) {
                throw new IllegalArgumentException("maxBufferedRows (" + buffered + ") must be at least"
                        + " maxBatchRows (" + b.maxBatchRows + ")");
            }
            if (b.flushInterval.isNegative() || b.flushInterval.isZero()) {
                throw new IllegalArgumentException("flushInterval must be positive");
            }
            if (b.maxBlock.isNegative()) {
                throw new IllegalArgumentException("maxBlock must be zero or positive");
            }
            this.maxBatchRows = b.maxBatchRows;
            this.maxBatchBytes = b.maxBatchBytes;
            this.flushInterval = b.flushInterval;
            this.maxInFlightRequests = b.maxInFlightRequests;
            this.maxBufferedRows = buffered;
            this.whenFull = b.whenFull;
            this.maxBlock = b.maxBlock;
            this.path = b.path;
            this.orderedPerTable = b.orderedPerTable;
        }

        /**
         * Starts a builder holding the defaults.
         *
         * @return a builder
         */
        public static Builder newBuilder() {
            return new Builder();
        }

        /**
         * Starts a builder holding this config's values.
         *
         * @return a builder
         */
        public Builder toBuilder() {
            Builder b = new Builder();
            b.maxBatchRows = maxBatchRows;
            b.maxBatchBytes = maxBatchBytes;
            b.flushInterval = flushInterval;
            b.maxInFlightRequests = maxInFlightRequests;
            b.maxBufferedRows = maxBufferedRows;
            b.whenFull = whenFull;
            b.maxBlock = maxBlock;
            b.path = path;
            b.orderedPerTable = orderedPerTable;
            return b;
        }

        /** @return rows that make a batch full */
        public int maxBatchRows() {
            return maxBatchRows;
        }

        /** @return approximate bytes that make a batch full */
        public long maxBatchBytes() {
            return maxBatchBytes;
        }

        /** @return longest time a row waits in a batch before it is sent */
        public Duration flushInterval() {
            return flushInterval;
        }

        /** @return batches sent and not yet answered */
        public int maxInFlightRequests() {
            return maxInFlightRequests;
        }

        /** @return rows buffered or in flight before writers wait */
        public long maxBufferedRows() {
            return maxBufferedRows;
        }

        /** @return what a write does when the buffer is full */
        public WhenFull whenFull() {
            return whenFull;
        }

        /** @return longest wait for buffer room under {@link WhenFull#Block} */
        public Duration maxBlock() {
            return maxBlock;
        }

        /** @return the path batches travel on */
        public Path path() {
            return path;
        }

        /** @return true when at most one batch of a table is in flight (regular path) */
        public boolean orderedPerTable() {
            return orderedPerTable;
        }

        @Override
        public String toString() {
            return "BatchingWriter.Config{maxBatchRows=" + maxBatchRows + ", maxBatchBytes=" + maxBatchBytes
                    + ", flushInterval=" + flushInterval + ", maxInFlightRequests=" + maxInFlightRequests
                    + ", maxBufferedRows=" + maxBufferedRows + ", whenFull=" + whenFull + ", maxBlock=" + maxBlock
                    + ", path=" + path + ", orderedPerTable=" + orderedPerTable + '}';
        }

        /** Builder for {@link Config}; starts from the defaults. */
        public static final class Builder {
            private int maxBatchRows = 10_000;
            private long maxBatchBytes = 8L << 20;
            private Duration flushInterval = Duration.ofMillis(200);
            private int maxInFlightRequests = 4;
            private long maxBufferedRows = -1;
            private WhenFull whenFull = WhenFull.Block;
            private Duration maxBlock = Duration.ofSeconds(10);
            private Path path = Path.Regular;
            private boolean orderedPerTable;

            private Builder() {
            }

            /**
             * Sets the rows that make a batch full.
             *
             * @param rows a positive count (default 10,000)
             * @return this
             */
            public Builder maxBatchRows(int rows) {
                this.maxBatchRows = rows;
                return this;
            }

            /**
             * Sets the approximate bytes that make a batch full.
             *
             * @param bytes a positive size (default 8 MiB)
             * @return this
             */
            public Builder maxBatchBytes(long bytes) {
                this.maxBatchBytes = bytes;
                return this;
            }

            /**
             * Sets the longest time a row waits in a batch before it is sent.
             *
             * @param interval a positive duration (default 200 ms)
             * @return this
             */
            public Builder flushInterval(Duration interval) {
                this.flushInterval = Objects.requireNonNull(interval, "flushInterval");
                return this;
            }

            /**
             * Sets how many batches may be sent and not yet answered.
             *
             * @param requests a positive count (default 4; the bulk path uses at most 31)
             * @return this
             */
            public Builder maxInFlightRequests(int requests) {
                this.maxInFlightRequests = requests;
                return this;
            }

            /**
             * Sets how many rows may be buffered or in flight before writers wait.
             *
             * @param rows at least {@code maxBatchRows} (default 1,000,000, or {@code maxBatchRows} when larger)
             * @return this
             * @throws IllegalArgumentException when negative (a count below {@code maxBatchRows} is refused by
             *     {@link #build()})
             */
            public Builder maxBufferedRows(long rows) {
                if (rows < 0) {
                    throw new IllegalArgumentException("maxBufferedRows (" + rows + ") must be at least maxBatchRows");
                }
                this.maxBufferedRows = rows;
                return this;
            }

            /**
             * Sets what a write does when the buffer is full.
             *
             * @param policy {@link WhenFull#Block} (default, bounded by {@code maxBlock}) or {@link WhenFull#FailFast}
             * @return this
             */
            public Builder whenFull(WhenFull policy) {
                this.whenFull = Objects.requireNonNull(policy, "whenFull");
                return this;
            }

            /**
             * Sets the longest wait for buffer room under {@link WhenFull#Block}.
             *
             * @param wait zero or positive (default 10 s)
             * @return this
             */
            public Builder maxBlock(Duration wait) {
                this.maxBlock = Objects.requireNonNull(wait, "maxBlock");
                return this;
            }

            /**
             * Sets the path batches travel on.
             *
             * @param path {@link Path#Regular} (default) or {@link Path#Bulk}
             * @return this
             */
            public Builder path(Path path) {
                this.path = Objects.requireNonNull(path, "path");
                return this;
            }

            /**
             * Keeps at most one batch of a table in flight at a time (regular path).
             *
             * @param ordered true to keep a table's batches in order, retries included (default false)
             * @return this
             */
            public Builder orderedPerTable(boolean ordered) {
                this.orderedPerTable = ordered;
                return this;
            }

            /**
             * Builds the config.
             *
             * @return the config
             * @throws IllegalArgumentException when the values do not fit together
             */
            public Config build() {
                return new Config(this);
            }
        }
    }
}
