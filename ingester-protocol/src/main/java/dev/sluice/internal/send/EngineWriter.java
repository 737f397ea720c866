package dev.sluice.internal.send;

import dev.sluice.internal.error.GrpcErrors;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.write.Err;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WhenFull;
import dev.sluice.write.WriteException;
import io.grpc.CallOptions;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * The client's one writer on the send engine, under {@code HandleRequests} streams and bulk {@code DoPut} alike.
 * It holds the rules every streaming path shares: each message holds its room in the client-wide byte budget (and,
 * where the path has them, an answer slot) until it is answered or failed; messages go to the engine, which sends
 * and resends them; answers, failures and the writer's end settle them (memory, room, slot, future, counts,
 * metrics) in one place; the first failure is the writer's failure; calls name their endpoint in transport
 * failures; resends are counted and told (one warning per run of failures).
 *
 * <p>What differs between paths is its {@link Path}'s: how an answer is read, how a call that ended cleanly is
 * read, and how errors and breaks are worded. How a write becomes messages is the path's own, before
 * {@link #admit}.
 *
 * @param <Q> the request message type
 * @param <R> the response message type
 * @param <X> the path's exception type
 */
public final class EngineWriter<Q, R, X extends WriteException> {
    private final Path<R, X> path;
    private final MetricsSink metrics;
    private final Logger log;
    private final InFlightLimiter limiter;
    private final Executor callbacks;
    private final Consumer<? super Q> free;
    private final boolean answeredAsAWhole;
    /** Answer slots, or null when the path has none. */
    private final Semaphore slots;
    private final SendEngine.Settings<Q> settings;
    /** Whether the path's answers are read on the transport's thread (and their outcomes handed to {@link #inOrder}). */
    private final boolean onTransport;
    /** Where outcomes go in order: failures always, answers when they are read on the transport's thread. */
    private final InOrder inOrder;
    /**
     * Held while a failure is made the writer's and its messages settled, and while a message the failure refused
     * is settled: the refused message's future then fails after theirs.
     */
    private final Object settling = new Object();
    /** Messages refused by an engine whose failure had not yet settled the messages it lost; guarded by settling. */
    private final List<Message<Q>> refusedWhileLosing = new ArrayList<>();
    private final SendEngine<Q, R, Message<Q>> engine;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong ackedRows = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    /** The writer's failure: the first one wins. */
    private volatile X failure;
    /** {@code host:port} of the endpoint the current call went to, named in transport failures. */
    private volatile String authority;
    /**
     * Set by the first break of a run that is not the server refusing for now (warned about), cleared by the next
     * answer: later ones are logged at DEBUG.
     */
    private volatile boolean breaking;

    /**
     * One message on the engine: its payload until it will not be sent again, its room in the byte budget and its
     * future. A message answered on its own holds its room until answered or failed; one of a call answered as a
     * whole gives it back as soon as its bytes are let go (sent for good, or settled).
     *
     * @param <Q> the request message type
     */
    public static final class Message<Q> extends SendEngine.Entry<Q> {
        private Q payload;
        private final Consumer<? super Q> free;
        private final InFlightLimiter.Permit budget;
        private final boolean roomUntilAnswered;
        private final CompletableFuture<Integer> answer = new CompletableFuture<>();

        private Message(long id, int size, long deadline, Q payload, Consumer<? super Q> free,
                        InFlightLimiter.Permit budget, boolean roomUntilAnswered) {
            super(id, size, deadline);
            this.payload = payload;
            this.free = free;
            this.budget = budget;
            this.roomUntilAnswered = roomUntilAnswered;
        }

        /**
         * Returns the message's future: the rows the server wrote for it, or its failure. Completed only for a path
         * answered message by message.
         *
         * @return the future
         */
        public CompletableFuture<Integer> answer() {
            return answer;
        }

        @Override
        protected Q payload() {
            return payload;
        }

        @Override
        protected void release() {
            Q p = payload;
            payload = null;
            if (p != null) {
                free.accept(p);
            }
            if (!roomUntilAnswered) {
                budget.release();
            }
        }
    }

    /**
     * What differs between paths: how answers are read and how outcomes are worded. {@link #cleanEnd} runs under the
     * engine's lock and must not block.
     *
     * @param <R> the response message type
     * @param <X> the path's exception type
     */
    public interface Path<R, X> extends SendEngine.Responses<R> {
        /**
         * Returns the path's name in metrics ({@code "stream"}, {@code "bulk"}).
         *
         * @return the name
         */
        String metric();

        /**
         * Returns the tables an error names.
         *
         * @return the tables
         */
        List<String> tables();

        /**
         * Tells whether the server answers the call as a whole (true) or message by message (false). A status from
         * a server answering as a whole leaves unanswered messages possibly written; one answering message by
         * message ends the call at the message it failed, and later ones were not read.
         *
         * @return true for a call answered as a whole
         */
        boolean answeredAsAWhole();

        /**
         * Tells whether the path's calls are answered on the transport's own thread: answers are read and the next
         * messages sent there, and everything that runs callers' code is handed to the callback executor, in order.
         * Only for a path answered message by message.
         *
         * @return true to answer on the transport's thread; false (the default) to run the call's listener on the
         *     channel's callback executor
         */
        default boolean answersOnTransport() {
            return false;
        }

        /**
         * A response arrived (the engine calls the path directly); a path answered message by message passes each
         * answer to {@link #acknowledge}.
         *
         * @param response the message
         * @param fromCurrentCall false for a late response of a call a resend replaced
         */
        @Override
        void onResponse(R response, boolean fromCurrentCall);

        /**
         * Reads a call the server ended cleanly; under the engine's lock.
         *
         * @param unanswered messages still pending
         * @return how the engine goes on
         */
        SendEngine.Ending cleanEnd(int unanswered);

        /**
         * Words the failure of messages failed for good (they are settled with it; it becomes the writer's
         * failure unless it has one).
         *
         * @param broken what broke
         * @param notResent why they were not resent although the failure was retryable, or null
         * @return the exception
         */
        X failure(SendEngine.Broken broken, String notResent);

        /**
         * Words the refusal of a message submitted after the engine ended without failing (completed, closed).
         *
         * @return the exception
         */
        X ended();

        /**
         * Words the refusal of a message whose call could not start (the client's channels or executor shut down).
         *
         * @param id the message's id
         * @param cause what opening the call threw
         * @param err the error read from it, naming the endpoint
         * @return the exception
         */
        X notSent(long id, RuntimeException cause, Err err);

        /**
         * Returns the words a break of this path is told in.
         *
         * @return the words
         */
        Breaks breaks();

        /** The engine finished: half-closed with nothing pending, answered for the last time, failed or aborted. */
        default void finished() {
        }
    }

    /**
     * The words a path's breaks are told in: {@code "<subject> broke (<why>); its <n> <units> are <resent> on a new
     * stream after the retry policy's backoff, <until>"} for the warning that starts a run of breaks, and
     * {@code "<subject> broke (<why>); <resending> <n> <units> on a new stream"} for the later ones.
     *
     * @param subject what broke, e.g. {@code "bulk stream of 'cpu'"}
     * @param units what is sent again, plural, e.g. {@code "unanswered batches"}
     * @param resent how they are sent again, e.g. {@code "resent"}
     * @param resending the same as a verb of the later breaks, e.g. {@code "resending"}
     * @param until until when, and how later breaks are told
     */
    public record Breaks(String subject, String units, String resent, String resending, String until) {
        String first(SendEngine.Broken broken, int entries) {
            return subject + " broke (" + broken.err().message() + "); its " + entries + " " + units + " are " + resent
                    + " on a new stream after the retry policy's backoff, " + until;
        }

        String next(SendEngine.Broken broken, int entries) {
            return subject + " broke (" + broken.err().message() + "); " + resending + " " + entries + " " + units
                    + " on a new stream";
        }
    }

    /**
     * What a writer shares with its client.
     *
     * @param limiter the client-wide byte budget every message takes room from
     * @param callbacks where failed futures complete (never a gRPC I/O thread)
     * @param metrics where outcomes and resends are counted
     */
    public record Shared(InFlightLimiter limiter, Executor callbacks, MetricsSink metrics) {
    }

    /**
     * Creates the writer and its engine; no call is opened yet.
     *
     * @param settings the engine's timers, policy and limits
     * @param route chooses each call's endpoint and hears how the call ended
     * @param method the streaming call
     * @param options its call options
     * @param shared the client's budget, callback executor and metrics
     * @param answerSlots how many messages may wait for their answers at once, 0 for no such bound
     * @param free lets go of a payload that will not be sent again
     * @param log where breaks and failures are told
     * @param path what differs for this path
     */
    public EngineWriter(SendEngine.Settings<Q> settings, Route route, MethodDescriptor<Q, R> method,
                        CallOptions options, Shared shared, int answerSlots, Consumer<? super Q> free, Logger log,
                        Path<R, X> path) {
        this.path = path;
        this.settings = settings;
        this.metrics = shared.metrics();
        this.limiter = shared.limiter();
        this.callbacks = shared.callbacks();
        this.free = free;
        this.log = log;
        this.answeredAsAWhole = path.answeredAsAWhole();
        this.slots = answerSlots > 0 ? new Semaphore(answerSlots, true) : null;
        this.onTransport = path.answersOnTransport() && !answeredAsAWhole;
        this.inOrder = new InOrder(callbacks);
        CallOptions callOptions = onTransport ? options.withExecutor(Runnable::run) : options;
        this.engine = new SendEngine<>(settings, route, ch -> {
            authority = ch.authority();
            return ch.newCall(method, callOptions);
        }, path, new Events(), onTransport ? inOrder : null);
    }

    /**
     * Returns the engine.
     *
     * @return the engine
     */
    public SendEngine<Q, R, Message<Q>> engine() {
        return engine;
    }

    /**
     * Returns the time on the engine's clock.
     *
     * @return nanoseconds
     */
    public long now() {
        return settings.clock().getAsLong();
    }

    /**
     * Takes an answer slot, waiting as the path's settings say; a slot is given back when the message that holds
     * it is answered or settled, or by {@link #dropped()}.
     *
     * @param whenFull whether to wait at all
     * @param maxBlock how long to wait
     * @return false when none freed in time, or the thread was interrupted (its flag is set again)
     */
    public boolean takeSlot(WhenFull whenFull, Duration maxBlock) {
        if (whenFull == WhenFull.FailFast) {
            return slots.tryAcquire();
        }
        try {
            return slots.tryAcquire(maxBlock.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * A write that took a slot, or was refused before it became a message, failed: it counts (and is reported to
     * the metrics sink, in order with the answers), and its slot is back.
     *
     * @param err why, or null for a failure of the client's own
     */
    public void dropped(Err err) {
        refused(err);
        if (slots != null) {
            slots.release();
        }
    }

    /**
     * A write refused before it took a slot failed: it counts, and is reported to the metrics sink in order with
     * the answers.
     *
     * @param err why, or null for a failure of the client's own
     */
    public void refused(Err err) {
        failed.incrementAndGet();
        inOrder.execute(() -> countFailure(err));
    }

    /**
     * Takes room in the client's byte budget for a message not made yet, waiting as the client's limit policy says;
     * nothing is counted when there is none.
     *
     * @param size the most bytes the message will have
     * @param givenUp true once the room is no longer wanted (the writer closed): the wait ends then
     * @return the room, for {@link #admit(long, Object, int, long, InFlightLimiter.Permit)}
     * @throws dev.sluice.LimitExceededException when no room came within the policy's wait, or it was given up
     */
    public InFlightLimiter.Permit reserve(long size, java.util.function.BooleanSupplier givenUp) {
        return limiter.acquire(size, false, givenUp);
    }

    /**
     * Makes a message of a payload with room reserved for it earlier ({@link #reserve}), keeping only the room its
     * size needs (and the slot the caller took, if the path has slots).
     *
     * @param id unique within the writer, increasing in submission order
     * @param payload the encoded message
     * @param size its bytes, at most the room reserved
     * @param deadline as {@link #admit(long, Object, int, long)}
     * @param room the room reserved for it
     * @return the message, for {@link #submit}
     */
    public Message<Q> admit(long id, Q payload, int size, long deadline, InFlightLimiter.Permit room) {
        room.shrinkTo(size);
        return new Message<>(id, size, deadline, payload, free, room, !answeredAsAWhole);
    }

    /** A slot taken for a write that was then not made (it keeps its rows for a later one): the slot is back. */
    public void unslot() {
        if (slots != null) {
            slots.release();
        }
    }

    /**
     * Makes a message of a payload, with its room in the client's byte budget (and the slot the caller took, if
     * the path has slots).
     *
     * @param id unique within the writer, increasing in submission order
     * @param payload the encoded message
     * @param size its bytes
     * @param deadline its delivery deadline on the engine's clock, or 0 to count it from the first failure or the
     *     half-close
     * @return the message, for {@link #submit}
     * @throws RuntimeException when the budget had no room ({@code LimitExceededException}); the payload is let go,
     *     the slot given back and the write counted failed
     */
    public Message<Q> admit(long id, Q payload, int size, long deadline) {
        InFlightLimiter.Permit budget;
        try {
            budget = limiter.acquire(size, false);
        } catch (RuntimeException e) {
            free.accept(payload);
            dropped(null);
            throw e;
        }
        return new Message<>(id, size, deadline, payload, free, budget, !answeredAsAWhole);
    }

    /**
     * Hands a message to the engine, which sends it and resends it as the retry policy allows. A refused message
     * (the writer failed or ended, or its call could not start) is settled with the refusal.
     *
     * @param m the message
     * @return null when taken, else the refusal
     */
    public X submit(Message<Q> m) {
        X refused = failure;
        if (refused == null) {
            try {
                if (!engine.submit(m)) {
                    refused = failure != null ? failure : path.ended();
                }
            } catch (RuntimeException e) {
                refused = path.notSent(m.id(), e, error(e));
            }
        }
        if (refused != null) {
            synchronized (settling) {
                if (failure == null && engine.losing()) {
                    // The failure that ended the engine is yet to settle the messages it lost, which came before
                    // this one: it settles this one after them, so that futures fail in batch order.
                    refusedWhileLosing.add(m);
                } else {
                    settle(List.of(m), refused); // after the messages the failure settled, in batch order
                }
            }
        }
        return refused;
    }

    /**
     * A message was answered (whichever call carried it: an answered message is committed): its room and slot are
     * given back, it is counted, and its future completes with the rows written.
     *
     * @param id the message's id
     * @param table the table named in metrics
     * @param rows rows the server wrote
     */
    public void acknowledge(long id, String table, long rows) {
        answered();
        Message<Q> m = engine.ack(id);
        if (m == null) {
            return;
        }
        m.budget.release();
        if (slots != null) {
            slots.release();
        }
        acked.incrementAndGet();
        ackedRows.addAndGet(rows);
        if (!onTransport) {
            record(table, rows, m.size(), m.sentAt());
            m.answer.complete((int) rows);
            return;
        }
        // On the transport's thread: metrics and the future's dependents are callers' code.
        long sentAt = m.sentAt();
        inOrder.execute(() -> {
            record(table, rows, m.size(), sentAt);
            m.answer.complete((int) rows);
        });
    }

    /**
     * Reports an answer in metrics.
     *
     * @param table the table, or {@code "multiple"}
     * @param rows rows written
     * @param bytes bytes sent
     * @param since when the write was sent, on the engine's clock
     */
    public void record(String table, long rows, long bytes, long since) {
        metrics.rows(path.metric(), table, rows);
        metrics.bytes(path.metric(), bytes);
        metrics.latency(path.metric(), now() - since);
    }

    /**
     * Ends the engine at once (the call is cancelled and nothing more is sent) and settles every unanswered
     * message with {@code e}, which becomes the writer's failure unless it has one.
     *
     * @param e the failure, or null to end without one (the path's outcome stands)
     * @param why the reason given to the server
     */
    public void abort(X e, String why) {
        synchronized (settling) {
            if (e != null) {
                fail(e);
            }
            List<Message<Q>> taken = engine.abort(why);
            if (e != null) {
                settle(taken, e);
            }
        }
    }

    /**
     * Makes {@code e} the writer's failure unless it has one.
     *
     * @param e the failure
     */
    public void fail(X e) {
        synchronized (this) {
            if (failure == null) {
                failure = e;
            }
        }
    }

    /**
     * Returns the writer's failure.
     *
     * @return the first failure, or null
     */
    public X failure() {
        return failure;
    }

    /**
     * Counts messages answered on their own.
     *
     * @return answered messages
     */
    public long acked() {
        return acked.get();
    }

    /**
     * Counts the rows the server wrote for messages answered on their own.
     *
     * @return rows
     */
    public long ackedRows() {
        return ackedRows.get();
    }

    /**
     * Counts writes that failed.
     *
     * @return failed writes
     */
    public long failed() {
        return failed.get();
    }

    /** Settles failed messages: gives back their memory, room and slot, counts them, and fails their futures. */
    private void settle(List<Message<Q>> messages, X e) {
        for (Message<Q> m : messages) {
            m.releaseOnce(); // a message the engine never took; the engine released the others already
            m.budget.release();
            if (slots != null) {
                slots.release();
            }
            failed.incrementAndGet();
            if (!answeredAsAWhole) {
                // In order with the answers before it, and off the caller's and the transport's threads.
                inOrder.execute(() -> {
                    countFailure(e.err());
                    m.answer.completeExceptionally(e);
                });
            }
        }
    }

    private void countFailure(Err err) {
        metrics.failure(path.metric(), err == null ? -1 : err.code(), err == null ? "CLIENT" : err.grpcCode().name());
    }

    /**
     * Reads a failure as the client's other paths do, naming the endpoint of the current call.
     *
     * @param failure what the call or the transport threw
     * @return the error
     */
    public Err error(Throwable failure) {
        return GrpcErrors.fromThrowable(failure, path.tables(), authority);
    }

    /**
     * An error the writer raises itself: nothing, or not everything, reached the server.
     *
     * @param grpc the status code
     * @param message what happened
     * @param retryable whether writing again may succeed
     * @return the error, naming the path's tables
     */
    public Err localError(StatusCode.Grpc grpc, String message, boolean retryable) {
        return new Err(-1, grpc, message, retryable, path.tables(), null);
    }

    /** The server answered: the next break starts a new run, and is warned about. */
    private void answered() {
        if (breaking) {
            breaking = false;
        }
    }

    private final class Events implements SendEngine.Handler<R, Message<Q>> {
        @Override
        public SendEngine.Ending ended(Status status, Metadata trailers, String timeout, int unanswered) {
            if (timeout != null) {
                return new SendEngine.Broken(localError(StatusCode.Grpc.DEADLINE_EXCEEDED, timeout, true), true, null);
            }
            if (!status.isOk()) {
                Throwable cause = status.asRuntimeException(trailers);
                Err err = error(cause);
                return new SendEngine.Broken(err, answeredAsAWhole || err.code() < 0, cause);
            }
            return path.cleanEnd(unanswered);
        }

        @Override
        public void failed(List<Message<Q>> entries, SendEngine.Broken broken, String notResent) {
            X e = path.failure(broken, notResent);
            log.warn("{}", e.getMessage());
            if (answeredAsAWhole) {
                countFailure(broken.err());
            }
            synchronized (settling) {
                fail(e);
                settle(entries, e);
                settle(refusedWhileLosing, e);
                refusedWhileLosing.clear();
            }
        }

        @Override
        public void resending(SendEngine.Broken broken, int entries) {
            metrics.retry(path.metric());
            if (broken.serverRefusal()) {
                // The server refused for now (rate limiting, a region moving): part of normal operation.
                log.info("{}", path.breaks().next(broken, entries));
            } else if (!breaking) {
                breaking = true;
                log.warn("{}", path.breaks().first(broken, entries));
            } else if (log.isDebugEnabled()) {
                log.debug("{}", path.breaks().next(broken, entries));
            }
        }

        @Override
        public void finished() {
            path.finished();
        }
    }
}
