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
     * {@code GreptimeDB.streamWriter(StreamWriter.Config.newBuilder().maxRowsPerSecond(double).replay(boolean).build(), Context)}).
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

    /**
     * Settings of a stream opened by {@code GreptimeDB.streamWriter}. Immutable; build with {@link #newBuilder()}.
     *
     * <table>
     *   <caption>Options</caption>
     *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
     *   <tr><td>maxRowsPerSecond</td><td>0 (none)</td><td>a rate limit for this stream</td></tr>
     *   <tr><td>replay</td><td>true, false with the {@code append_mode=true} hint</td><td>keep every message until
     *       the stream is answered and resend all of it on a new stream after a retryable failure</td></tr>
     * </table>
     */
    final class Config {
        private final double maxRowsPerSecond;
        private final Boolean replay;

        private Config(Builder b) {
            if (b.maxRowsPerSecond < 0 || Double.isNaN(b.maxRowsPerSecond)) {
                throw new IllegalArgumentException("maxRowsPerSecond must be 0 (no limit) or positive");
            }
            this.maxRowsPerSecond = b.maxRowsPerSecond;
            this.replay = b.replay;
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
            Builder b = new Builder().maxRowsPerSecond(maxRowsPerSecond);
            b.replay = replay;
            return b;
        }

        /** @return the rate limit in rows per second, 0 for none */
        public double maxRowsPerSecond() {
            return maxRowsPerSecond;
        }

        /**
         * Tells whether a stream opened with this config and a context replays after failures.
         *
         * @param ctx the stream's context
         * @return the replay set on the builder, else true unless the context has {@code append_mode=true}
         */
        public boolean replays(dev.sluice.write.Context ctx) {
            return replay != null ? replay : !ctx.appendMode();
        }

        @Override
        public String toString() {
            return "StreamWriter.Config{maxRowsPerSecond=" + maxRowsPerSecond + ", replay="
                    + (replay == null ? "default" : replay) + '}';
        }

        /** Builder for {@link Config}; starts from the defaults. */
        public static final class Builder {
            private double maxRowsPerSecond;
            private Boolean replay;

            private Builder() {
            }

            /**
             * Sets a rate limit for the stream.
             *
             * @param rowsPerSecond rows per second, 0 (the default) for none
             * @return this
             */
            public Builder maxRowsPerSecond(double rowsPerSecond) {
                this.maxRowsPerSecond = rowsPerSecond;
                return this;
            }

            /**
             * Chooses whether the stream keeps its messages and replays them after a retryable failure.
             *
             * @param replay true to replay (the default unless the context has {@code append_mode=true})
             * @return this
             */
            public Builder replay(boolean replay) {
                this.replay = replay;
                return this;
            }

            /**
             * Builds the config.
             *
             * @return the config
             */
            public Config build() {
                return new Config(this);
            }
        }
    }
}
