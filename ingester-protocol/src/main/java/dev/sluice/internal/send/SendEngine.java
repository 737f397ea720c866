package dev.sluice.internal.send;

import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The one send engine under the client's streaming paths, {@code HandleRequests} streams and bulk {@code DoPut}:
 * a flow-controlled outbox over a client-streaming gRPC call that survives the call breaking.
 *
 * <p>Messages ({@link Entry}) are queued and go out as gRPC flow control allows ({@code onReady}). Each stays
 * pending until the path answers it ({@link #ack(long)} per message, or every one at once when the call ends
 * cleanly) or it fails. When a call breaks with a retryable failure, a new call is opened on the next endpoint
 * after the retry policy's backoff and only the pending messages are sent again, behind the optional preamble.
 * Endpoints come from the client's {@link Route}, which hears how each call ended: a transport failure counts
 * towards ejecting its endpoint for every path, and the next call avoids it when another endpoint is available.
 * Every call is an object of its own: a listener, a message timer or an answer timer holds the call it was made
 * for and does nothing once that call is no longer the current one, so nothing of an old call touches a new one.
 *
 * <p>The budget is per message: each call a message is queued on is one of the policy's attempts, and its delivery
 * deadline is its own (set when it is submitted, or, for a stream answered as a whole, counted from the first
 * failure or from the half-close, whichever comes first). A resend after an ambiguous outcome is refused for
 * append-mode tables. What a path does with outcomes (futures, exceptions, metrics) is its {@link Handler}'s.
 *
 * <p>Thread-safe. The handler's {@link Handler#ended} runs under the engine's lock and must not block; every
 * other handler method runs without it.
 *
 * @param <Q> the request message type
 * @param <R> the response message type
 * @param <E> the path's entry type
 */
public final class SendEngine<Q, R, E extends SendEngine.Entry<Q>> {
    /** Marks the preamble in the outbox. */
    private static final Object PREAMBLE = new Object();

    private final Settings<Q> settings;
    private final Route route;
    private final Function<Channel, ClientCall<Q, R>> calls;
    /** The endpoint of the last call that failed in the transport, avoided by the next; guarded by {@link #lock}. */
    private Route.Target avoid;
    private final Handler<R, E> handler;
    private final Responses<? super R> responses;
    /**
     * Where a call's end is handled, in order with the path's own hand-offs, when the call's listener runs on the
     * transport's thread; null when it runs on the channel's callback executor.
     */
    private final Executor onTransport;
    private final Object lock = new Object();
    /** Unanswered entries by id, oldest first. Guarded by {@link #lock}. */
    private final LinkedHashMap<Long, E> pending = new LinkedHashMap<>();
    /** What the current call has still to send: the preamble, then entries. Guarded by {@link #lock}. */
    private final ArrayDeque<Object> outbox = new ArrayDeque<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    /** The open call, or null between calls. Guarded by {@link #lock}. */
    private Call current;
    /** Identifies the scheduled reopening, null when none is; guarded by {@link #lock}. */
    private Reopening reopening;
    private long queuedBytes;
    private long pendingBytes;
    private boolean halfClosePending;
    /** Set once the engine ended (failed, aborted or answered for the last time): nothing is sent after. */
    private boolean ended;
    /** Why nothing is resent, or null while pending messages are kept for a resend. */
    private String noResend;
    private int reopenings;

    /**
     * What the engine needs besides the call factory and the handler.
     *
     * @param timer schedules message deadlines, answer deadlines and reopenings
     * @param policy attempts, backoff and delivery deadline of every message
     * @param appendMode no resend after an ambiguous failure (the table keeps every copy)
     * @param messageTimeout how long a message may wait for its own answer once queued on a call, or null when
     *     answers come only at the end of a call
     * @param answerTimeout how long the answer may take once the call is half-closed, or null for no bound
     * @param preamble sent first on every call (bulk's schema), or null
     * @param noResend why nothing is ever resent (the retry policy allows no resend, replay is off), or null
     * @param stopped true once the client shuts down: nothing is resent after that
     * @param noun what a message is called in errors ("batch", "message")
     * @param clock the time in nanoseconds that deadlines are on: {@code System::nanoTime}, or a test's manual clock
     *     (with a timer that runs on it)
     * @param <Q> the request message type
     */
    public record Settings<Q>(ScheduledExecutorService timer, RetryPolicy policy, boolean appendMode,
                              Duration messageTimeout, Duration answerTimeout, Q preamble, String noResend,
                              BooleanSupplier stopped, String noun, LongSupplier clock) {
        /**
         * Settings on the system's clock ({@code System.nanoTime()}).
         *
         * @param timer schedules message deadlines, answer deadlines and reopenings
         * @param policy attempts, backoff and delivery deadline of every message
         * @param appendMode no resend after an ambiguous failure
         * @param messageTimeout how long a message may wait for its own answer, or null
         * @param answerTimeout how long the answer may take once the call is half-closed, or null
         * @param preamble sent first on every call, or null
         * @param noResend why nothing is ever resent, or null
         * @param stopped true once the client shuts down
         * @param noun what a message is called in errors
         */
        public Settings(ScheduledExecutorService timer, RetryPolicy policy, boolean appendMode, Duration messageTimeout,
                        Duration answerTimeout, Q preamble, String noResend, BooleanSupplier stopped, String noun) {
            this(timer, policy, appendMode, messageTimeout, answerTimeout, preamble, noResend, stopped, noun,
                    System::nanoTime);
        }
    }

    /**
     * One message, pending until answered or failed. Its engine-owned fields are guarded by the engine's lock.
     *
     * @param <Q> the request message type
     */
    public abstract static class Entry<Q> {
        final long id;
        final int size;
        long deadline;
        int attempts;
        long sentAt;
        boolean queued;
        boolean settled;
        Object call;
        ScheduledFuture<?> timer;

        /**
         * Creates an entry.
         *
         * @param id unique within its engine, increasing in submission order
         * @param size encoded bytes
         * @param deadline the delivery deadline ({@code System.nanoTime()}), or 0 to count it from the first failure
         *     or the half-close
         */
        protected Entry(long id, int size, long deadline) {
            this.id = id;
            this.size = size;
            this.deadline = deadline;
        }

        /**
         * Returns the entry's id.
         *
         * @return the id
         */
        public final long id() {
            return id;
        }

        /**
         * Returns the encoded size.
         *
         * @return bytes
         */
        public final int size() {
            return size;
        }

        /**
         * Returns when the entry was last handed to gRPC ({@code System.nanoTime()}), 0 before.
         *
         * @return nanoTime
         */
        public final long sentAt() {
            return sentAt;
        }

        /**
         * Returns the message to send; called under the engine's lock, only while the entry is kept.
         *
         * @return the message
         */
        protected abstract Q payload();

        /**
         * Frees what the message holds (memory, budget) once it will not be sent again: after it was sent when
         * nothing is resent, or when it is answered or failed. Called once, under the engine's lock.
         */
        protected abstract void release();

        boolean released;

        void releaseOnce() {
            if (!released) {
                released = true;
                release();
            }
        }
    }

    /** How a call ended, as the path reads it. */
    public sealed interface Ending permits Answered, Broken {
    }

    /**
     * The call ended cleanly and every entry it carried is answered.
     *
     * @param last true when the engine ends with it (a stream answered as a whole), false when a later
     *     submission may open a new call
     */
    public record Answered(boolean last) implements Ending {
    }

    /**
     * The call broke.
     *
     * @param err what failed
     * @param ambiguous whether the unanswered entries may have been written (a transport failure, a timeout)
     * @param cause the status as an exception, or null
     */
    public record Broken(Err err, boolean ambiguous, Throwable cause) implements Ending {
        /**
         * Tells whether the transport failed (the endpoint, not the request, is at fault).
         *
         * @return true for a refused, reset or unreachable connection
         */
        public boolean transportFailure() {
            return dev.sluice.internal.error.GrpcErrors.transportFailure(err);
        }

        /**
         * Tells whether the server itself refused for now with one of GreptimeDB's codes (rate limiting, a region
         * moving): part of normal operation, unlike a connection that broke, was refused or was reset.
         *
         * @return true when the failure carries a GreptimeDB status code
         */
        public boolean serverRefusal() {
            return err.code() >= 0;
        }
    }

    /**
     * Where the responses of a call go, as they arrive (on gRPC's callback thread, outside the engine's lock).
     *
     * @param <R> the response message type
     */
    @FunctionalInterface
    public interface Responses<R> {
        /**
         * A response arrived.
         *
         * @param response the message
         * @param fromCurrentCall false for a late response of a call a resend replaced
         */
        void onResponse(R response, boolean fromCurrentCall);
    }

    /**
     * What a path hears from its engine.
     *
     * @param <R> the response message type
     * @param <E> the path's entry type
     */
    public interface Handler<R, E> {
        /**
         * Reads how a call ended; runs under the engine's lock, so it must not block.
         *
         * @param status the call's status
         * @param trailers its trailers
         * @param timeout why the engine cancelled the call (a message or the answer was late), or null
         * @param unanswered entries still pending
         * @return how the engine goes on
         */
        Ending ended(Status status, Metadata trailers, String timeout, int unanswered);

        /**
         * Entries were answered by the clean end of a call (each entry once).
         *
         * @param entries the entries, oldest first
         */
        default void answered(List<E> entries) {
        }

        /**
         * Entries failed for good (each entry once), and the engine ended.
         *
         * @param entries the entries, oldest first (may be empty)
         * @param broken what broke
         * @param notResent why they were not resent although the failure was retryable, or null
         */
        void failed(List<E> entries, Broken broken, String notResent);

        /**
         * A broken call will be replaced after a backoff and its pending entries resent.
         *
         * @param broken what broke
         * @param entries how many are resent
         */
        default void resending(Broken broken, int entries) {
        }

        /** The engine finished: half-closed with nothing pending, answered for the last time, failed or aborted. */
        default void finished() {
        }
    }

    /** One gRPC call; its fields are guarded by the engine's lock. */
    private final class Call extends ClientCall.Listener<R> {
        final ClientCall<Q, R> call;
        final Route.Target target;
        /** Set once the endpoint was told it answered (the first response); read and written on gRPC's thread. */
        boolean reached;
        /** Set once a message (not the preamble) was handed to this call: only then can its failure be ambiguous. */
        boolean sentAny;
        boolean halfClosed;
        boolean cancelled;
        String timeout;
        ScheduledFuture<?> answerTimer;

        Call(ClientCall<Q, R> call, Route.Target target) {
            this.call = call;
            this.target = target;
        }

        @Override
        public void onMessage(R message) {
            if (!reached) {
                reached = true;
                target.reached();
            }
            boolean now;
            synchronized (lock) {
                now = current == this;
            }
            responses.onResponse(message, now);
        }

        @Override
        public void onReady() {
            drain();
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            if (onTransport == null) {
                closed(this, status, trailers);
                return;
            }
            try {
                onTransport.execute(() -> closed(this, status, trailers));
            } catch (RejectedExecutionException shuttingDown) {
                closed(this, status, trailers);
            }
        }
    }

    /**
     * Creates the engine; no call is opened before the first submission or half-close.
     *
     * @param settings timers, policy and limits
     * @param route chooses each call's endpoint and hears how the call ended
     * @param calls a new call on the given endpoint's channel, each time it is asked
     * @param responses where responses go
     * @param handler what the path does with outcomes
     */
    public SendEngine(Settings<Q> settings, Route route, Function<Channel, ClientCall<Q, R>> calls,
                      Responses<? super R> responses, Handler<R, E> handler) {
        this(settings, route, calls, responses, handler, null);
    }

    /**
     * Creates an engine whose calls' listeners run on the transport's own thread (each call made with a direct
     * executor): answers are read there, with no hop to another thread per answer. Messages are still sent by the
     * thread that submits them (or, when the call was not ready, by the transport's thread once it is). How a call
     * ended is handled on {@code onTransport}, never on the transport's thread; {@code responses} must hand whatever
     * runs callers' code (futures, metrics) to the same executor.
     *
     * @param settings timers, policy and limits
     * @param route chooses each call's endpoint and hears how the call ended
     * @param calls a new call on the given endpoint's channel, each time it is asked
     * @param responses where responses go, on the transport's thread
     * @param handler what the path does with outcomes, on {@code onTransport} (or the thread that ends the engine)
     * @param onTransport runs tasks one at a time, in order; null for calls on the channel's callback executor
     */
    public SendEngine(Settings<Q> settings, Route route, Function<Channel, ClientCall<Q, R>> calls,
                      Responses<? super R> responses, Handler<R, E> handler, Executor onTransport) {
        this.onTransport = onTransport;
        this.settings = settings;
        this.route = route;
        this.calls = calls;
        this.responses = responses;
        this.handler = handler;
        this.noResend = settings.noResend();
    }

    /**
     * Opens a call now (a stream opens at once, so that a dead endpoint shows early); does nothing when one is open.
     */
    public void open() {
        synchronized (lock) {
            if (current == null && reopening == null && !ended) {
                openCall();
            }
        }
        drain();
    }

    /**
     * Queues an entry on the current call, opening one when none is open and none is about to be.
     *
     * @param entry the entry
     * @return false when the engine has ended (the entry was not taken: the caller settles it)
     * @throws RuntimeException when a new call cannot start (the entry was not taken: the caller settles it)
     */
    public boolean submit(E entry) {
        synchronized (lock) {
            if (ended || halfClosePending) {
                return false;
            }
            pending.put(entry.id, entry);
            pendingBytes += entry.size;
            Call c = current;
            if (c != null && !c.cancelled && !c.halfClosed) {
                queue(entry, c);
            } else if (reopening == null) {
                try {
                    openCall();
                } catch (RuntimeException e) {
                    // A call that cannot even start (the channel or its executor is shut down): the entry was
                    // never taken, so the caller fails it; pending others wait for the abort that follows.
                    pending.remove(entry.id);
                    pendingBytes -= entry.size;
                    Call broken = current;
                    current = null;
                    if (broken != null) {
                        try {
                            broken.call.cancel("the call could not start", e);
                        } catch (RuntimeException ignored) {
                            // already unusable
                        }
                    }
                    throw e;
                }
            } // else: the reopening queues it
        }
        drain();
        return true;
    }

    /**
     * Waits until the outbox has room for {@code size} more bytes under {@code max} (an empty outbox always has),
     * or the engine ended, for at most {@code timeout} on the engine's clock. The deadline is counted and watched
     * on that clock ({@link Settings#clock()}, woken by {@link Settings#timer()}), the one every other deadline of
     * the engine is on.
     *
     * @param size the bytes to add
     * @param max the most bytes that may wait for flow control
     * @param timeout how long to wait at most
     * @return false when the timeout passed first
     * @throws InterruptedException when interrupted
     */
    public boolean awaitRoom(long size, long max, Duration timeout) throws InterruptedException {
        synchronized (lock) {
            if (!full(size, max)) {
                return true;
            }
        }
        long deadline = now() + timeout.toNanos();
        ScheduledFuture<?> wake;
        try {
            // The clock may be one the timer moves (a test's): its timer, not a real-time wait, tells when it is due.
            wake = settings.timer().schedule(() -> {
                synchronized (lock) {
                    lock.notifyAll();
                }
            }, timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shuttingDown) {
            wake = null; // the client is shutting down: its shutdown ends this engine, which ends the wait
        }
        try {
            synchronized (lock) {
                while (full(size, max)) {
                    long left = deadline - now();
                    if (left <= 0) {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                }
                return true;
            }
        } finally {
            if (wake != null) {
                wake.cancel(false);
            }
        }
    }

    /** Whether {@code size} more bytes do not fit in the outbox now; holds the lock. */
    private boolean full(long size, long max) {
        return !ended && queuedBytes != 0 && queuedBytes + size > max;
    }

    /**
     * Stops keeping messages for a resend: sent ones are released now, later ones once sent; a later failure is final.
     *
     * @param why the reason, given in the failure
     */
    public void stopResending(String why) {
        synchronized (lock) {
            if (noResend != null) {
                return;
            }
            noResend = why;
            for (E e : pending.values()) {
                if (!e.queued && e.sentAt != 0) {
                    e.releaseOnce();
                }
            }
        }
    }

    /**
     * Ends the call once everything queued is sent; the engine finishes when nothing is pending and the call ended.
     * The answer deadline starts now, and stream entries' delivery deadlines too.
     */
    public void halfClose() {
        synchronized (lock) {
            if (halfClosePending || ended) {
                return;
            }
            halfClosePending = true;
            startDeadlines(now());
            if (current != null) {
                scheduleAnswerTimer(current);
            } else if (reopening == null && (!pending.isEmpty() || answeredAtEnd())) {
                openCall(); // a stream answered as a whole needs a call to hear its answer, even an empty one
            }
        }
        drain();
        finishIfDone();
    }

    /**
     * Marks an entry answered.
     *
     * @param id the entry's id
     * @return the entry, or null when it is not pending (answered already, failed, or unknown)
     */
    public E ack(long id) {
        E e;
        boolean last;
        synchronized (lock) {
            e = pending.remove(id);
            if (e == null) {
                return null;
            }
            settle(e);
            lock.notifyAll();
            last = halfClosePending && pending.isEmpty();
        }
        if (onTransport == null) {
            finishIfDone();
        } else if (last) {
            try {
                onTransport.execute(this::finishIfDone);
            } catch (RejectedExecutionException shuttingDown) {
                finishIfDone();
            }
        }
        return e;
    }

    /**
     * Ends the engine at once: takes every pending entry (the caller fails them), stops any reopening and cancels
     * the call.
     *
     * @param why the reason given to the server
     * @return the entries taken, oldest first
     */
    public List<E> abort(String why) {
        List<E> taken;
        Call c;
        synchronized (lock) {
            ended = true;
            reopening = null;
            taken = takeAll();
            c = current;
            current = null;
            if (c != null) {
                c.cancelled = true;
                cancelTimer(c);
            }
            lock.notifyAll();
        }
        if (c != null) {
            c.call.cancel(why, null);
        }
        finish();
        return taken;
    }

    /**
     * Returns a future completed when the engine has finished.
     *
     * @return the future
     */
    public CompletableFuture<Void> done() {
        return done;
    }

    /**
     * Counts pending entries.
     *
     * @return entries
     */
    public int pendingCount() {
        synchronized (lock) {
            return pending.size();
        }
    }

    /**
     * Returns the bytes of pending entries (queued or sent).
     *
     * @return bytes
     */
    public long pendingBytes() {
        synchronized (lock) {
            return pendingBytes;
        }
    }

    /**
     * Returns the latest delivery deadline of the pending entries, or {@code now} when none is set.
     *
     * @param now the current {@code System.nanoTime()}
     * @return nanoTime
     */
    public long lastDeadline(long now) {
        synchronized (lock) {
            long last = now;
            for (E e : pending.values()) {
                if (e.deadline != 0) {
                    last = Math.max(last, e.deadline);
                }
            }
            return last;
        }
    }

    /**
     * Counts calls opened to resend after a failure.
     *
     * @return reopenings
     */
    public int reopenings() {
        synchronized (lock) {
            return reopenings;
        }
    }

    /** Opens a call and queues the preamble and every pending entry; holds the lock. */
    private void openCall() {
        Route.Target target = route.next(avoid);
        Call c = new Call(calls.apply(target.channel()), target);
        current = c;
        outbox.clear();
        queuedBytes = 0;
        c.call.start(c, new Metadata());
        c.call.request(Integer.MAX_VALUE);
        if (settings.preamble() != null) {
            outbox.add(PREAMBLE);
        }
        for (E e : pending.values()) {
            queue(e, c);
        }
        if (halfClosePending) {
            scheduleAnswerTimer(c);
        }
    }

    /** Puts an entry in line on a call, counting the attempt and starting its message deadline; holds the lock. */
    private void queue(E e, Call c) {
        e.attempts++;
        e.call = c;
        e.queued = true;
        queuedBytes += e.size;
        outbox.add(e);
        cancelTimer(e);
        Duration perMessage = settings.messageTimeout();
        if (perMessage != null) {
            long wait = perMessage.toNanos();
            if (e.deadline != 0) {
                wait = Math.min(wait, e.deadline - now());
            }
            boolean byDeadline = wait < perMessage.toNanos();
            try {
                e.timer = settings.timer().schedule(() -> messageTimedOut(e, c, byDeadline), Math.max(0, wait),
                        TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException rejected) {
                e.timer = null; // the client is shutting down; its shutdown aborts this engine
            }
        }
    }

    /** Bounds the wait for a half-closed call's answer by the answer timeout and the entries' deadlines; holds the lock. */
    private void scheduleAnswerTimer(Call c) {
        Duration answer = settings.answerTimeout();
        if (answer == null || c.answerTimer != null) {
            return;
        }
        long now = now();
        long wait = answer.toNanos();
        for (E e : pending.values()) {
            if (e.deadline != 0) {
                wait = Math.min(wait, e.deadline - now);
            }
        }
        String why = "no answer within " + answer.toMillis() + " ms (requestTimeout; raise it for a server that is"
                + " slow to answer) of completing the stream to " + c.target.address();
        boolean byDeadline = wait < answer.toNanos();
        try {
            c.answerTimer = settings.timer().schedule(() -> timedOut(c, byDeadline ? deadlinePassed() : why),
                    Math.max(0, wait), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException rejected) {
            c.answerTimer = null;
        }
    }

    private void messageTimedOut(E e, Call c, boolean byDeadline) {
        synchronized (lock) {
            if (e.settled || e.call != c) {
                return; // answered, or a timer of an earlier call
            }
        }
        timedOut(c, byDeadline ? deadlinePassed() : settings.noun() + " " + e.id + " had no answer within "
                + settings.messageTimeout().toMillis() + " ms (requestTimeout; raise it for a server that is slow to"
                + " answer) from " + c.target.address());
    }

    /**
     * Why a call is given up at a delivery deadline: the deadline, and the failure that kept the data from being
     * answered before it (a refused connection, a server away), which is what the caller needs to act on.
     */
    private String deadlinePassed() {
        Broken before;
        synchronized (lock) {
            before = lastBroken;
        }
        return DEADLINE_PASSED + (before == null ? ""
                : "; the last failure before it: " + before.err().message());
    }

    /** A deadline of a call passed: it is presumed broken and cancelled; its end decides the rest. */
    private void timedOut(Call c, String why) {
        synchronized (lock) {
            if (current != c || c.cancelled) {
                return;
            }
            c.cancelled = true;
            c.timeout = why;
        }
        c.call.cancel(why, null);
    }

    /** Sends what the current call can take now, then half-closes it when asked to and nothing is left. */
    private void drain() {
        synchronized (lock) {
            Call c = current;
            if (c == null || c.cancelled) {
                return;
            }
            boolean sent = false;
            while (!outbox.isEmpty() && !c.halfClosed && c.call.isReady()) {
                Object o = outbox.poll();
                if (o == PREAMBLE) {
                    c.call.sendMessage(settings.preamble());
                    continue;
                }
                @SuppressWarnings("unchecked")
                E e = (E) o;
                if (e.settled || e.call != c || !e.queued) {
                    continue; // answered or failed meanwhile, or queued again on a later call
                }
                e.queued = false;
                queuedBytes -= e.size;
                e.sentAt = now();
                sent = true;
                c.sentAny = true;
                try {
                    c.call.sendMessage(e.payload());
                } finally {
                    // gRPC has serialized the message inside sendMessage: without resends it is not needed again.
                    if (noResend != null) {
                        e.releaseOnce();
                    }
                }
            }
            if (sent) {
                lock.notifyAll();
            }
            if (halfClosePending && outbox.isEmpty() && !c.halfClosed) {
                c.halfClosed = true;
                c.call.halfClose();
            }
        }
    }

    private static final String DEADLINE_PASSED = "the delivery deadline (the retry policy's deliveryTimeout) passed"
            + " with no answer";

    /**
     * Set from the moment a failure ends the engine with entries lost until its handler has heard of them; guarded
     * by the lock.
     */
    private boolean losing;

    /**
     * Whether a failure has ended the engine and its handler has not yet heard of the entries it lost: an entry
     * refused meanwhile is to be settled after those, where the handler settles them.
     *
     * @return true while the handler is still to hear of the lost entries
     */
    public boolean losing() {
        synchronized (lock) {
            return losing;
        }
    }

    /** The last failure of a call other than a delivery deadline passing; guarded by the lock. */
    private Broken lastBroken;

    /**
     * A scheduled reopening. It waits for the handler to have heard of the resend it makes (so that what the path
     * tells of a resend comes before anything of the attempts after it); its fields are guarded by the lock.
     */
    private static final class Reopening {
        /** Set once the handler heard of the resend. */
        boolean told;
        /** Set when the backoff ran out before the handler heard: the telling thread reopens. */
        boolean due;
    }

    /** A call ended: answered, resent on a new call after the backoff, or failed for good. */
    private void closed(Call c, Status status, Metadata trailers) {
        List<E> answered = List.of();
        Reopening scheduled = null;
        List<E> lost = null;
        Broken broken = null;
        String notResent = null;
        boolean last = false;
        Ending ending;
        synchronized (lock) {
            if (current != c) {
                return; // aborted, or replaced
            }
            current = null;
            cancelTimer(c);
            ending = handler.ended(status, trailers, c.timeout, pending.size());
            if (ending instanceof Answered a) {
                answered = takeAll();
                last = a.last();
                if (last) {
                    ended = true;
                }
            } else {
                broken = (Broken) ending;
                if (broken.ambiguous() && !c.sentAny) {
                    // Nothing went out on this call (a refused connection, say): nothing can have been committed,
                    // whatever the path thinks of such failures, so the append-mode rule does not hold it back.
                    broken = new Broken(broken.err(), false, broken.cause());
                }
                if (c.timeout == null || !c.timeout.startsWith(DEADLINE_PASSED)) {
                    lastBroken = broken;
                }
                avoid = transportFailed(c, status, broken) ? c.target : null;
                if (pending.isEmpty() && !(halfClosePending && answeredAtEnd())) {
                    broken = null; // nothing was lost: the next submission opens a new call
                } else {
                    // One draw of the jittered backoff: the wait the deadline allowed is the wait scheduled.
                    long wait = AttemptRules.backoffNanos(settings.policy(), minAttempts());
                    notResent = whyNotResent(broken, wait);
                    if (broken.err().retryable() && notResent == null) {
                        Reopening token = new Reopening();
                        try {
                            settings.timer().schedule(() -> reopen(token), wait, TimeUnit.NANOSECONDS);
                            reopening = token;
                            scheduled = token;
                            reopenings++;
                            startDeadlines(now());
                        } catch (RejectedExecutionException rejected) {
                            notResent = AttemptRules.SHUTTING_DOWN;
                        }
                    }
                    if (reopening == null) {
                        ended = true;
                        lost = takeAll();
                        losing = true;
                    }
                }
            }
            lock.notifyAll();
        }
        tellEndpoint(c, status, ending, lost == null ? null : notResent != null ? notResent : "the failure is final");
        try {
            if (!answered.isEmpty()) {
                handler.answered(answered);
            }
            if (lost != null) {
                try {
                    handler.failed(lost, broken, broken.err().retryable() ? notResent : null);
                } finally {
                    synchronized (lock) {
                        losing = false;
                    }
                }
            } else if (broken != null) {
                try {
                    handler.resending(broken, pendingCount());
                } finally {
                    if (scheduled != null) {
                        told(scheduled);
                    }
                }
            }
        } finally {
            if (last || lost != null) {
                finish(); // this thread ended the engine: it finishes it, after the handler heard the outcome
            } else {
                finishIfDone();
            }
        }
    }

    /**
     * Whether a call failed in the transport (refused, reset, unreachable), which counts against its endpoint; a
     * call the engine cancelled itself (a late answer) or the server ended says nothing against it.
     */
    private boolean transportFailed(Call c, Status status, Broken broken) {
        return c.timeout == null && !status.isOk() && dev.sluice.internal.error.GrpcErrors.transportFailure(broken.err());
    }

    /** The noun of the messages, in the plural ("batches", "messages"). */
    private String plural() {
        String n = settings.noun();
        return n.endsWith("s") || n.endsWith("sh") || n.endsWith("ch") || n.endsWith("x") ? n + "es" : n + "s";
    }

    /** Tells the call's endpoint how the call ended; outside the lock. */
    private void tellEndpoint(Call c, Status status, Ending ending, String notResent) {
        if (ending instanceof Broken b) {
            if (transportFailed(c, status, b)) {
                AttemptRules.report(c.target, b.err(), () -> notResent == null
                        ? "unanswered " + plural() + " are sent again on a new call (on another endpoint when"
                        + " one answers) until their delivery deadline, then fail"
                        : "unanswered " + plural() + " fail (" + notResent + ")");
            } else if (c.timeout == null && !c.reached) {
                c.target.reached(); // the server itself ended the call
            }
        } else if (!c.reached) {
            c.target.reached();
        }
    }

    private long now() {
        return settings.clock().getAsLong();
    }

    /** Whether answers come only at the end of a call (a stream) rather than one per message (bulk). */
    private boolean answeredAtEnd() {
        return settings.messageTimeout() == null;
    }

    /**
     * Why the pending entries may not be resent after a retryable failure, or null when they may; holds the lock.
     * The rules shared with every write path are {@link AttemptRules}'; this engine adds its own two (resending
     * switched off, nothing to resend).
     *
     * @param waitNanos the backoff the resend would wait, the one then scheduled
     */
    private String whyNotResent(Broken broken, long waitNanos) {
        boolean stopped = settings.stopped().getAsBoolean();
        if (!stopped && noResend != null) {
            return noResend;
        }
        RetryPolicy policy = settings.policy();
        if (pending.isEmpty()) {
            String why = AttemptRules.refusal(policy, settings.appendMode(), stopped, broken.ambiguous(), 0, "",
                    0, 0, 0);
            // nothing to lose, and no message budget to bound a retry
            return why != null ? why : "it carried nothing to resend";
        }
        E oldest = pending.values().iterator().next();
        long earliest = 0;
        for (E e : pending.values()) {
            if (e.deadline != 0 && (earliest == 0 || e.deadline < earliest)) {
                earliest = e.deadline;
            }
        }
        return AttemptRules.refusal(policy, settings.appendMode(), stopped, broken.ambiguous(), oldest.attempts,
                settings.noun() + " " + oldest.id, earliest, now(), waitNanos);
    }

    private int minAttempts() {
        int min = Integer.MAX_VALUE;
        for (E e : pending.values()) {
            min = Math.min(min, e.attempts);
        }
        return pending.isEmpty() ? 0 : min;
    }

    /** Entries whose deadline counts from a failure or the half-close get it now; holds the lock. */
    private void startDeadlines(long now) {
        long deadline = now + settings.policy().deliveryTimeout().toNanos();
        for (E e : pending.values()) {
            if (e.deadline == 0) {
                e.deadline = deadline;
            }
        }
    }

    /** The handler heard of a resend: its reopening may run, at once when its backoff already ran out. */
    private void told(Reopening token) {
        boolean due;
        synchronized (lock) {
            token.told = true;
            due = token.due;
        }
        if (due) {
            reopen(token);
        }
    }

    private void reopen(Reopening token) {
        synchronized (lock) {
            if (reopening != token || ended) {
                return;
            }
            if (!token.told) {
                token.due = true; // reopened once the handler heard of the resend
                return;
            }
            reopening = null;
            if (pending.isEmpty() && !halfClosePending) {
                return;
            }
            openCall();
        }
        drain();
        finishIfDone();
    }

    /** Takes every pending entry, releasing each and cancelling its timer; holds the lock. */
    private List<E> takeAll() {
        List<E> all = new ArrayList<>(pending.values());
        for (Iterator<E> it = pending.values().iterator(); it.hasNext(); ) {
            settle(it.next());
            it.remove();
        }
        outbox.clear();
        queuedBytes = 0;
        return all;
    }

    /** An entry leaves the pending set; holds the lock. */
    private void settle(E e) {
        e.settled = true;
        pendingBytes -= e.size;
        if (e.queued) {
            e.queued = false;
            queuedBytes -= e.size;
        }
        cancelTimer(e);
        e.releaseOnce();
    }

    private static void cancelTimer(Entry<?> e) {
        if (e.timer != null) {
            e.timer.cancel(false);
            e.timer = null;
        }
    }

    private void cancelTimer(Call c) {
        if (c.answerTimer != null) {
            c.answerTimer.cancel(false);
            c.answerTimer = null;
        }
    }

    /**
     * Finishes once half-closed with nothing pending, nothing reopening and no call open. An engine that already
     * ended is left alone: whatever ended it (a failure, the last answer, an abort) finishes it itself, after its
     * handler has heard why, so that {@link Handler#finished} and {@link #done()} never run ahead of the outcome.
     */
    private void finishIfDone() {
        synchronized (lock) {
            if (ended || !(halfClosePending && pending.isEmpty() && reopening == null && current == null)) {
                return;
            }
            ended = true;
        }
        finish();
    }

    private void finish() {
        if (done.complete(null)) {
            handler.finished();
        }
    }
}
