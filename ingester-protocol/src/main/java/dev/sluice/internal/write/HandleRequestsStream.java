package dev.sluice.internal.write;

import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import dev.sluice.StreamWriteException;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import dev.sluice.internal.error.GrpcErrors;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.internal.wire.GreptimeResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@link StreamWriter} over {@code GreptimeDatabase/HandleRequests}. Writes are encoded and queued; they go out
 * as gRPC flow control allows ({@code onReady}), and the queue is bounded in bytes.
 */
public final class HandleRequestsStream implements StreamWriter<Table, WriteOk> {
    /**
     * The largest message put on a stream: a bigger table is sent as several messages of consecutive rows. The
     * stream is answered once, for all of them, so nothing changes for the caller, while the server parses a few
     * MiB at a time instead of holding a 150 MB request and its decoded rows at once.
     */
    static final int MAX_STREAM_MESSAGE = 4 << 20;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HandleRequestsStream.class);
    private volatile ClientCall<RequestEncoder, GreptimeResponse> call;
    private final java.util.function.Supplier<Channel> channels;
    private final CallOptions callOptions;
    private final long replayBudget;
    private final RetryPolicy policy;
    /** Messages sent and kept for a replay, each still holding its share of the budget. Guarded by this. */
    private final ArrayDeque<Queued> kept = new ArrayDeque<>();
    private long keptBytes;
    /** False once the stream could not keep every message (or replay is off): a failure is then final. */
    private boolean keeping;
    /** Tags a call and everything scheduled for it, so that nothing of an earlier call touches a later one. */
    private volatile int generation;
    private int replays;
    private long firstFailure;
    /** When {@link #completed()} was first called (nanoTime), 0 before: the answer's delivery deadline counts from it. */
    private long completedAt;
    private boolean reopening;
    private boolean userCancelled;
    private final byte[] header;
    private final long maxQueuedBytes;
    private final long timeoutNanos;
    private final double rowsPerSecond;
    private final int maxMessageSize;
    private final ScheduledExecutorService timer;
    private final ArrayDeque<Queued> outbox = new ArrayDeque<>();
    private final InFlightLimiter limiter;
    private final MetricsSink metrics;
    private final long started;
    private long sentBytes;

    /** A message waiting for flow control, with its share of the client-wide budget. */
    private record Queued(RequestEncoder encoder, InFlightLimiter.Permit permit) {
    }
    private final List<String> sentTables = new ArrayList<>();
    private final CompletableFuture<WriteOk> result = new CompletableFuture<>();
    private long queuedBytes;
    private boolean halfClosePending;
    private boolean halfClosed;
    private volatile StreamWriteException failure;
    private volatile boolean finished;
    private GreptimeResponse response;
    private long rateStart;
    private long rateRows;

    /**
     * Opens the stream.
     *
     * @param channels the next healthy endpoint's channel, each time it is asked (a replay opens a new call)
     * @param options call options (compression, hints); the deadline, if any, covers the whole stream
     * @param header the request header bytes
     * @param maxQueuedBytes encoded bytes that may wait for flow control before {@code write} blocks
     * @param timeoutMillis how long {@code write} may block
     * @param rowsPerSecond a rate limit, or 0 for none
     * @param maxMessageSize the largest message sent
     * @param timer bounds the wait for the final answer after {@link #completed()}
     * @param limiter the client-wide budget queued messages count against
     * @param metrics where the outcome is reported
     * @param replayBudget bytes of sent messages kept for replaying the stream after a failure, 0 for no replay
     * @param policy how often and for how long a broken stream is reopened and replayed
     */
    public HandleRequestsStream(java.util.function.Supplier<Channel> channels, CallOptions options, byte[] header,
                                long maxQueuedBytes, long timeoutMillis, double rowsPerSecond, int maxMessageSize,
                                ScheduledExecutorService timer, InFlightLimiter limiter, MetricsSink metrics,
                                long replayBudget, RetryPolicy policy) {
        this.channels = channels;
        this.callOptions = options;
        this.replayBudget = replayBudget;
        this.policy = policy;
        this.keeping = replayBudget > 0 && policy.maxAttempts() > 1;
        this.metrics = metrics;
        this.started = System.nanoTime();
        this.timer = timer;
        this.limiter = limiter;
        this.header = header;
        this.maxQueuedBytes = maxQueuedBytes;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.rowsPerSecond = rowsPerSecond;
        this.maxMessageSize = maxMessageSize;
        synchronized (this) {
            openCall(++generation);
        }
    }

    /** Opens a call on the next endpoint for generation {@code gen}; caller holds the lock. */
    private void openCall(int gen) {
        ClientCall<RequestEncoder, GreptimeResponse> c = channels.get().newCall(WriteMethods.HANDLE_REQUESTS, callOptions);
        call = c;
        halfClosed = false;
        response = null;
        c.start(new Listener(gen), new Metadata());
        c.request(1);
    }

    /** Counts tables written to the stream (all unconfirmed until it completes). */
    @Override
    public synchronized int sentMessages() {
        return sentTables.size();
    }

    /** Counts stream reopenings after failures. */
    @Override
    public synchronized int replays() {
        return replays;
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
            InFlightLimiter.Permit permit;
            try {
                permit = limiter.acquire(part.size(), false);
            } catch (dev.sluice.LimitExceededException e) {
                throw new StreamWriteException(e.getMessage(), null, unconfirmed(), e);
            }
            try {
                enqueue(part, permit, first ? value.tableName() : null);
            } catch (RuntimeException e) {
                permit.release();
                throw e;
            }
            first = false;
            drain();
        }
        return this;
    }

    private synchronized List<String> unconfirmed() {
        return List.copyOf(sentTables);
    }

    /** Queues one message; {@code table} is recorded as sent (once per written table, with its first part). */
    private void enqueue(RequestEncoder encoder, InFlightLimiter.Permit permit, String table) {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (this) {
            while (true) {
                checkUsable();
                if (queuedBytes == 0 || queuedBytes + encoder.size() <= maxQueuedBytes) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new StreamWriteException("the stream's send buffer stayed full (" + queuedBytes
                            + " bytes waiting for the server) for " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms",
                            null, List.copyOf(sentTables), null);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StreamWriteException("interrupted while waiting to send", null, List.copyOf(sentTables), e);
                }
            }
            if (keeping && keptBytes + queuedBytes + encoder.size() > replayBudget) {
                LOG.warn("stream keeps {} bytes for replay and a message of {} bytes would pass its replay budget of {}"
                        + " bytes: from now on a failure of this stream is final (complete streams sooner to keep them"
                        + " replayable)", keptBytes + queuedBytes, encoder.size(), replayBudget);
                keeping = false;
                releaseKept();
            }
            outbox.add(new Queued(encoder, permit));
            sentBytes += encoder.size();
            queuedBytes += encoder.size();
            if (table != null) {
                sentTables.add(table);
            }
        }
    }

    private void clearOutbox() {
        for (Queued q : outbox) {
            q.permit().release();
        }
        outbox.clear();
        queuedBytes = 0;
        releaseKept();
    }

    /** Gives back the budget of the messages kept for a replay; holds the lock. */
    private void releaseKept() {
        for (Queued q : kept) {
            q.permit().release();
        }
        kept.clear();
        keptBytes = 0;
    }

    private void checkUsable() {
        StreamWriteException f = failure;
        if (f != null) {
            throw new StreamWriteException(f.getMessage(), f.err(), f.unconfirmedTables(), f);
        }
        if (halfClosePending) {
            throw new StreamWriteException("the stream is completed; open a new one", null, List.copyOf(sentTables), null);
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
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(wait, timeoutNanos));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamWriteException("interrupted while rate limited", null, List.of(), e);
            }
        }
    }

    private synchronized void drain() {
        if (finished) {
            clearOutbox();
            return;
        }
        if (reopening) {
            return; // the replay resends everything once the backoff is over
        }
        while (!outbox.isEmpty() && call.isReady()) {
            Queued q = outbox.poll();
            queuedBytes -= q.encoder().size();
            boolean keep = keeping;
            try {
                call.sendMessage(q.encoder());
            } finally {
                if (keep) {
                    kept.add(q);
                    keptBytes += q.encoder().size();
                } else {
                    q.permit().release();
                }
            }
        }
        notifyAll();
        if (halfClosePending && outbox.isEmpty() && !halfClosed) {
            halfClosed = true;
            call.halfClose();
        }
    }

    @Override
    public CompletableFuture<WriteOk> completed() {
        boolean first = false;
        synchronized (this) {
            if (!halfClosePending && failure == null) {
                halfClosePending = true;
                completedAt = System.nanoTime();
                first = true;
            }
        }
        drain();
        if (first) {
            scheduleAnswerTimeout(generation);
        }
        return result;
    }

    /**
     * Bounds the wait for the answer of the call of generation {@code gen} once it is half-closed: the call's timeout,
     * cut short where the delivery deadline ends first.
     */
    private void scheduleAnswerTimeout(int gen) {
        long wait;
        synchronized (this) {
            wait = Math.max(0, Math.min(timeoutNanos, deliveryStart() + policy.deliveryTimeout().toNanos() - System.nanoTime()));
        }
        try {
            timer.schedule(() -> answerTimedOut(gen), wait, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            answerTimedOut(gen);
        }
    }

    private void answerTimedOut(int gen) {
        if (result.isDone()) {
            return;
        }
        synchronized (this) {
            if (gen != generation) {
                return; // a timer of a call a replay has replaced
            }
            ClientCall<RequestEncoder, GreptimeResponse> unanswered = call;
            // No answer is a deadline failure like any other: replayed (unless replay is off, as in append mode)
            // while the delivery deadline allows, counted from completed().
            if (!reopening && replay(Status.DEADLINE_EXCEEDED.withDescription("no answer within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms of completing the stream"), new Metadata())) {
                unanswered.cancel("no answer in time; the stream is replayed on a new call", null);
                return;
            }
            if (failure == null) {
                failure = new StreamWriteException("no answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                        + " ms of completing the stream (" + replays + " replays; not replayed again: "
                        + (keeping ? "the delivery deadline of " + policy.deliveryTimeout().toMillis() + " ms or the"
                        + " attempts allow no more)" : "replay is off)"), null, List.copyOf(sentTables), null);
            }
            finished = true;
            if (reopening) {
                endWithoutCall();
                return;
            }
        }
        call.cancel("no answer in time", null);
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
        boolean live;
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            if (failure == null) {
                failure = new StreamWriteException(why, null, List.copyOf(sentTables), null);
            }
            finished = true;
            userCancelled = true;
            clearOutbox();
            notifyAll();
            live = !reopening;
            reopening = false;
            generation++; // retires the call's listener and any scheduled reopen
        }
        result.completeExceptionally(failure);
        if (live) {
            call.cancel(why, null);
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (halfClosePending || finished) {
                return;
            }
        }
        cancel();
    }

    @Override
    public void cancel() {
        synchronized (this) {
            if (failure == null) {
                failure = new StreamWriteException("the stream was cancelled", null, List.copyOf(sentTables), null);
            }
            finished = true;
            userCancelled = true;
            clearOutbox();
            notifyAll();
            if (reopening) {
                endWithoutCall();
                return;
            }
        }
        call.cancel("cancelled by the caller", null);
    }

    /**
     * Schedules a new call after the policy's backoff that resends every message, when the stream kept them all
     * and the failure may pass within the policy's attempts and deadline (counted from the first failure); caller
     * holds the lock.
     *
     * @return true when a replay was scheduled
     */
    private boolean replay(Status status, Metadata trailers) {
        if (!keeping || userCancelled || finished && failure != null) {
            return false;
        }
        Err err = GrpcErrors.fromThrowable(status.asRuntimeException(trailers), List.of());
        if (!err.retryable()) {
            return false;
        }
        long now = System.nanoTime();
        if (replays == 0) {
            firstFailure = now;
        }
        long wait = policy.backoff(replays + 2).toNanos();
        if (replays + 1 >= policy.maxAttempts() || now + wait - deliveryStart() > policy.deliveryTimeout().toNanos()) {
            return false;
        }
        int gen = ++generation; // retires the broken call's listener and timers now
        reopening = true;
        try {
            timer.schedule(() -> reopen(gen), wait, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            reopening = false;
            return false;
        }
        replays++;
        metrics.retry("stream");
        LOG.info("stream broke ({}); replaying its {} messages on a new stream", status.getCode(), kept.size() + outbox.size());
        return true;
    }

    /**
     * Where the delivery deadline counts from: the first failure, or {@link #completed()} when that came first (the
     * answer of a completed stream is due within the deadline, however often it is replayed); caller holds the lock.
     */
    private long deliveryStart() {
        if (firstFailure == 0) {
            return completedAt != 0 ? completedAt : System.nanoTime();
        }
        return completedAt != 0 ? Math.min(firstFailure, completedAt) : firstFailure;
    }

    /**
     * Ends the stream while no call is open (a replay waits on its backoff): no {@code onClose} will come, so the
     * result is completed here; holds the lock.
     */
    private void endWithoutCall() {
        reopening = false;
        generation++; // the pending reopen finds a newer generation and does nothing
        clearOutbox();
        notifyAll();
        result.completeExceptionally(failure);
    }

    /** Opens the replacement call and puts every kept message back in front of the unsent ones. */
    private void reopen(int gen) {
        synchronized (this) {
            if (gen != generation || finished) {
                return;
            }
            reopening = false;
            ArrayDeque<Queued> again = new ArrayDeque<>(kept);
            again.addAll(outbox);
            kept.clear();
            keptBytes = 0;
            outbox.clear();
            outbox.addAll(again);
            queuedBytes = 0;
            for (Queued q : outbox) {
                queuedBytes += q.encoder().size();
            }
            halfClosed = false;
            openCall(gen);
            if (halfClosePending) {
                scheduleAnswerTimeout(gen);
            }
        }
        drain();
    }

    private final class Listener extends ClientCall.Listener<GreptimeResponse> {
        private final int gen;

        Listener(int gen) {
            this.gen = gen;
        }

        @Override
        public void onMessage(GreptimeResponse message) {
            synchronized (HandleRequestsStream.this) {
                if (gen == generation) {
                    response = message;
                }
            }
        }

        @Override
        public void onReady() {
            if (gen == generation) {
                drain();
            }
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            synchronized (HandleRequestsStream.this) {
                if (gen != generation) {
                    return;
                }
                if (!status.isOk() && replay(status, trailers)) {
                    return; // resent by reopen() after the backoff
                }
            }
            List<String> tables;
            synchronized (HandleRequestsStream.this) {
                finished = true;
                tables = List.copyOf(sentTables);
                clearOutbox();
                HandleRequestsStream.this.notifyAll();
            }
            if (status.isOk()) {
                dev.sluice.write.Result<WriteOk, Err> r = RegularWriter.toResult(response, distinct(tables));
                if (r.isOk()) {
                    List<String> distinct = distinct(tables);
                    metrics.rows("stream", distinct.size() == 1 ? distinct.get(0) : "multiple", r.getOk().affectedRows());
                    metrics.bytes("stream", sentBytes);
                    metrics.latency("stream", System.nanoTime() - started);
                    result.complete(r.getOk());
                    return;
                }
                fail(new StreamWriteException("the stream failed: " + r.getErr().message(), r.getErr(), tables, null));
                return;
            }
            Err err = GrpcErrors.fromThrowable(status.asRuntimeException(trailers), distinct(tables));
            metrics.failure("stream", err.code(), err.grpcCode().name());
            LOG.warn("stream failed after {} messages: {}", tables.size(), err.message());
            fail(new StreamWriteException("the stream failed: " + err.message() + "; " + tables.size()
                    + " messages were sent and not confirmed", err, tables, status.asRuntimeException(trailers)));
        }

        private void fail(StreamWriteException e) {
            synchronized (HandleRequestsStream.this) {
                if (failure == null) {
                    failure = e;
                }
            }
            result.completeExceptionally(failure);
        }
    }

    private static List<String> distinct(List<String> tables) {
        return tables.stream().distinct().toList();
    }
}
