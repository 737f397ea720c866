package dev.sluice.internal.write;

import dev.sluice.StreamWriteException;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.internal.send.EngineWriter;
import dev.sluice.internal.send.Route;
import dev.sluice.internal.send.SendEngine;
import dev.sluice.internal.wire.GreptimeResponse;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import io.grpc.CallOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * {@link StreamWriter} over {@code GreptimeDatabase/HandleRequests}, on the client's {@link SendEngine}. Writes are
 * encoded and queued; they go out as gRPC flow control allows, and the queue is bounded in bytes. The server
 * answers the stream once, when it is completed: until then every message is kept (within the replay budget) so
 * that a broken stream is replayed whole on a new call. Budget, sending, replays and failures are the client's one
 * writer on the send engine's ({@link EngineWriter}); this class keeps what is the stream's own: splitting tables
 * into messages, the rate limit, the replay budget and reading the stream's one answer.
 */
public final class HandleRequestsStream implements StreamWriter<Table, WriteOk> {
    /** How the stream's breaks are told. */
    private final EngineWriter.Breaks breaks;
    /**
     * The largest message put on a stream: a bigger table is sent as several messages of consecutive rows. The
     * stream is answered once, for all of them, so nothing changes for the caller, while the server parses a few
     * MiB at a time instead of holding a 150 MB request and its decoded rows at once.
     */
    static final int MAX_STREAM_MESSAGE = 4 << 20;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HandleRequestsStream.class);
    private final EngineWriter<RequestEncoder, GreptimeResponse, StreamWriteException> writer;
    private final SendEngine<RequestEncoder, GreptimeResponse, EngineWriter.Message<RequestEncoder>> engine;
    private final long replayBudget;
    private final byte[] header;
    private final long maxQueuedBytes;
    private final long timeoutNanos;
    private final double rowsPerSecond;
    private final int maxMessageSize;
    private final long started;
    private final CompletableFuture<WriteOk> result = new CompletableFuture<>();
    /** Tables written, once per {@code write}; guarded by this. */
    private final List<String> sentTables = new ArrayList<>();
    /** Whether sent messages are still kept for a replay (written by the producer). */
    private volatile boolean keeping;
    private long nextId;
    private long sentBytes;
    private long rateStart;
    private long rateRows;
    /** The current call's answer; guarded by this. */
    private GreptimeResponse response;
    /** The stream's outcome once its call ended cleanly; guarded by this. */
    private WriteOk answer;
    private volatile boolean completing;

    /**
     * Opens the stream.
     *
     * @param route chooses each call's endpoint (a replay opens a new call) and hears how it ended
     * @param stopped true once the client shuts down: nothing is replayed after that
     * @param options call options (compression, hints); the deadline, if any, covers the whole stream
     * @param header the request header bytes
     * @param maxQueuedBytes encoded bytes that may wait for flow control before {@code write} blocks
     * @param timeoutMillis how long {@code write} may block, and how long the answer may take after {@link #completed()}
     * @param rowsPerSecond a rate limit, or 0 for none
     * @param maxMessageSize the largest message sent
     * @param timer bounds the wait for the final answer and schedules replays
     * @param clock the time {@code timer} runs on, in nanoseconds: what replays' delivery deadlines are counted on
     * @param limiter the client-wide budget queued messages count against
     * @param metrics where the outcome is reported
     * @param replayBudget bytes of sent messages kept for replaying the stream after a failure, 0 for no replay
     * @param policy how often and for how long a broken stream is reopened and replayed
     */
    public HandleRequestsStream(Route route, BooleanSupplier stopped, CallOptions options, byte[] header,
                                long maxQueuedBytes, long timeoutMillis, double rowsPerSecond, int maxMessageSize,
                                ScheduledExecutorService timer, LongSupplier clock, InFlightLimiter limiter,
                                MetricsSink metrics, long replayBudget, RetryPolicy policy) {
        this.replayBudget = replayBudget;
        this.breaks = new EngineWriter.Breaks("stream", "messages", "replayed", "replaying", "until its delivery"
                + " deadline (" + policy.deliveryTimeout().toSeconds() + " s) or attempts run out, then it fails."
                + " Further breaks of this stream are logged at DEBUG");
        this.keeping = replayBudget > 0 && policy.maxAttempts() > 1;
        this.header = header;
        this.maxQueuedBytes = maxQueuedBytes;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.rowsPerSecond = rowsPerSecond;
        this.maxMessageSize = maxMessageSize;
        String noResend = keeping ? null : replayBudget <= 0 ? "replay is off" : "the retry policy allows no replay";
        SendEngine.Settings<RequestEncoder> settings = new SendEngine.Settings<>(timer, policy, false, null,
                Duration.ofMillis(timeoutMillis), null, noResend, stopped, "message", clock);
        // The stream has no answer slots: one answer comes for the whole stream; the outbox is bounded in bytes.
        this.writer = new EngineWriter<>(settings, route, WriteMethods.HANDLE_REQUESTS, options,
                new EngineWriter.Shared(limiter, Runnable::run, metrics), 0, encoder -> { }, LOG, new Events());
        this.engine = writer.engine();
        this.started = writer.now();
        engine.open();
    }

    /** Counts tables written to the stream (all unconfirmed until it completes). */
    @Override
    public synchronized int sentMessages() {
        return sentTables.size();
    }

    /** Counts stream reopenings after failures. */
    @Override
    public int replays() {
        return engine.reopenings();
    }

    @Override
    public StreamWriter<Table, WriteOk> write(Table value) {
        return write(value, WriteOp.Insert);
    }

    @Override
    public StreamWriter<Table, WriteOk> write(Table value, WriteOp op) {
        if (value == null || op == null) {
            throw new NullPointerException("value and op are required");
        }
        checkUsable();
        value.complete();
        if (value.rowCount() == 0) {
            return this;
        }
        List<RequestEncoder> parts = new RequestEncoder(header, op, List.of(value))
                .split(Math.min(MAX_STREAM_MESSAGE, maxMessageSize));
        for (RequestEncoder part : parts) {
            if (part.size() > maxMessageSize) {
                throw new StreamWriteException("table '" + value.tableName() + "' has a row that encodes to more than"
                        + " maxMessageSize (" + maxMessageSize + " bytes)", null, List.of(), null);
            }
        }
        throttle(value.rowCount());
        boolean first = true;
        for (RequestEncoder part : parts) {
            enqueue(part, first ? value.tableName() : null);
            first = false;
        }
        return this;
    }

    private synchronized List<String> unconfirmed() {
        return List.copyOf(sentTables);
    }

    /** Queues one message; {@code table} is recorded as sent (once per written table, with its first part). */
    private void enqueue(RequestEncoder encoder, String table) {
        try {
            if (!engine.awaitRoom(encoder.size(), maxQueuedBytes, Duration.ofNanos(timeoutNanos))) {
                throw new StreamWriteException("the stream's send buffer stayed full (waiting for the server) for "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms", null, unconfirmed(), null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamWriteException("interrupted while waiting to send", null, unconfirmed(), e);
        }
        checkUsable();
        // The engine's lock is never taken while holding this stream's (the engine calls into the stream under its own).
        if (keeping) {
            long kept = engine.pendingBytes();
            if (kept + encoder.size() > replayBudget) {
                LOG.warn("stream keeps {} bytes for replay and a message of {} bytes would pass its replay budget of {}"
                        + " bytes: from now on a failure of this stream is final (complete streams sooner to keep them"
                        + " replayable)", kept, encoder.size(), replayBudget);
                keeping = false;
                engine.stopResending("the stream outgrew its replay budget of " + replayBudget + " bytes");
            }
        }
        long id;
        synchronized (this) {
            id = ++nextId;
        }
        EngineWriter.Message<RequestEncoder> part;
        try {
            // the deadline counts from the first failure or from completed()
            part = writer.admit(id, encoder, encoder.size(), 0);
        } catch (dev.sluice.LimitExceededException e) {
            throw new StreamWriteException(e.getMessage(), null, unconfirmed(), e);
        }
        synchronized (this) {
            if (table != null) {
                sentTables.add(table);
            }
            sentBytes += encoder.size();
        }
        StreamWriteException refused = writer.submit(part);
        if (refused != null) {
            throw new StreamWriteException(refused.getMessage(), refused.err(), unconfirmed(), refused);
        }
    }

    private void checkUsable() {
        StreamWriteException f = writer.failure();
        if (f != null) {
            throw new StreamWriteException(f.getMessage(), f.err(), f.unconfirmedTables(), f);
        }
        if (completing) {
            throw new StreamWriteException("the stream is completed; open a new one", null, unconfirmed(), null);
        }
    }

    private void throttle(int rows) {
        if (rowsPerSecond <= 0) {
            return;
        }
        long now = System.nanoTime();
        long wait;
        synchronized (this) {
            if (rateStart == 0) {
                rateStart = now;
            }
            rateRows += rows;
            wait = rateStart + (long) (rateRows / rowsPerSecond * 1e9) - now;
        }
        if (wait > 0) {
            // Waits on this stream's monitor, so that a cancel, a shutdown or a failure ends the wait at once.
            long until = now + Math.min(wait, timeoutNanos);
            synchronized (this) {
                long left;
                while (writer.failure() == null && (left = until - System.nanoTime()) > 0) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new StreamWriteException("interrupted while rate limited", null, List.copyOf(sentTables), e);
                    }
                }
            }
            checkUsable();
        }
    }

    @Override
    public CompletableFuture<WriteOk> completed() {
        boolean first = false;
        synchronized (this) {
            if (!completing && writer.failure() == null) {
                completing = true;
                first = true;
            }
        }
        if (first) {
            engine.halfClose();
        }
        return result;
    }

    /** The stream's outcome, without completing it (for the client's bookkeeping). */
    CompletableFuture<WriteOk> outcome() {
        return result;
    }

    /**
     * Fails the stream because the client shuts down: its future completes with the reason, whatever state it is
     * in (sending, waiting for the answer, or waiting on a stopped timer to be replayed).
     *
     * @param why the reason
     */
    void abort(String why) {
        if (result.isDone()) {
            return;
        }
        end(why, why);
    }

    @Override
    public void close() {
        if (completing || result.isDone()) {
            return;
        }
        cancel();
    }

    @Override
    public void cancel() {
        end("the stream was cancelled", "cancelled by the caller");
    }

    private void end(String failureMessage, String toServer) {
        StreamWriteException e;
        synchronized (this) {
            e = answer == null ? new StreamWriteException(failureMessage, null, List.copyOf(sentTables), null) : null;
        }
        writer.abort(e, toServer); // its end wakes a write waiting on the rate limit
    }

    private static List<String> distinct(List<String> tables) {
        return tables.stream().distinct().toList();
    }

    /** What the engine tells the stream. */
    private final class Events implements EngineWriter.Path<GreptimeResponse, StreamWriteException> {
        @Override
        public String metric() {
            return "stream";
        }

        @Override
        public List<String> tables() {
            synchronized (HandleRequestsStream.this) {
                return distinct(sentTables);
            }
        }

        @Override
        public boolean answeredAsAWhole() {
            return true;
        }

        @Override
        public void onResponse(GreptimeResponse message, boolean fromCurrentCall) {
            if (fromCurrentCall) {
                synchronized (HandleRequestsStream.this) {
                    response = message;
                }
            }
        }

        @Override
        public SendEngine.Ending cleanEnd(int unanswered) {
            synchronized (HandleRequestsStream.this) {
                GreptimeResponse answered = response;
                response = null;
                dev.sluice.write.Result<WriteOk, Err> r = RegularWriter.toResult(answered, distinct(sentTables));
                if (r.isOk()) {
                    answer = r.getOk();
                    return new SendEngine.Answered(true);
                }
                return new SendEngine.Broken(r.getErr(), true, null);
            }
        }

        @Override
        public StreamWriteException failure(SendEngine.Broken broken, String notResent) {
            Err err = broken.err();
            List<String> tables = unconfirmed();
            return new StreamWriteException("the stream failed: " + err.message()
                    + (notResent != null ? " (" + engine.reopenings() + " replays; not replayed again: " + notResent + ")" : "")
                    + "; " + tables.size() + " messages were sent and not confirmed", err, tables, broken.cause());
        }

        @Override
        public StreamWriteException ended() {
            return new StreamWriteException(completing ? "the stream is completed; open a new one"
                    : "the stream has ended; open a new one", null, unconfirmed(), null);
        }

        @Override
        public StreamWriteException notSent(long id, RuntimeException cause, Err err) {
            return new StreamWriteException("could not send message " + id + " of the stream: " + cause, err,
                    unconfirmed(), cause);
        }

        @Override
        public EngineWriter.Breaks breaks() {
            return breaks;
        }

        @Override
        public void finished() {
            WriteOk ok;
            StreamWriteException f;
            List<String> tables;
            synchronized (HandleRequestsStream.this) {
                ok = answer;
                f = writer.failure();
                tables = distinct(sentTables);
                HandleRequestsStream.this.notifyAll(); // a write waiting on the rate limit
            }
            if (ok != null) {
                writer.record(tables.size() == 1 ? tables.get(0) : "multiple", ok.affectedRows(), sentBytes, started);
                result.complete(ok);
                return;
            }
            result.completeExceptionally(f != null ? f : new StreamWriteException("the stream ended without an answer",
                    null, tables, null));
        }
    }
}
