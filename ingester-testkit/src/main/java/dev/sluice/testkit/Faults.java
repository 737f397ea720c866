package dev.sluice.testkit;

import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * Fault injection for a {@link GreptimeTestServer}: errors with a chosen code, latency, and requests that
 * are never answered. Faults apply to write and DDL requests (each message of a stream counts as one),
 * never to health checks. A failed request stores nothing. Thread-safe.
 *
 * <p>A hold gate lets a test act while requests have reached the server and are unanswered:
 *
 * <pre>{@code
 * server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> r.tables().contains("metrics"));
 * // write from the client (on another thread, or asynchronously), then:
 * server.faults().awaitHeld(1, Duration.ofSeconds(30)); // the write is stored, its answer not sent
 * // ... let the client time out, stop it, or check what is stored ...
 * server.faults().release();                             // the answer goes out
 * }</pre>
 */
public final class Faults {
    private final Deque<Injected> queue = new ArrayDeque<>();
    private Injected every;
    private int everyN;
    private long counter;
    private long injected;
    private volatile Duration latency = Duration.ZERO;
    private volatile boolean neverRespond;
    private volatile Duration bulkAckDelay = Duration.ZERO;
    private volatile boolean bulkNeverAck;
    private Injected bulkFailure;
    private long bulkFailAt;
    private long bulkBatches;
    private volatile ValueRefusal valueRefusal;
    private HoldPoint holdPoint;
    private Predicate<RecordedRequest> holdWhich;
    private final List<Runnable> held = new ArrayList<>();

    /**
     * Where {@link #hold(HoldPoint, Predicate)} stops a request. Either way the request has passed the checks
     * that come before storing (credentials, database, injected errors), and its answer waits for
     * {@link #release()}.
     */
    public enum HoldPoint {
        /**
         * Before storing: nothing of the request is stored until release, when it is stored and answered (a
         * request the client gave up on meanwhile is still stored, as by a server that was merely slow).
         */
        BEFORE_STORE,
        /**
         * After storing, before answering: the rows are stored (or the request refused) at once, and the answer,
         * success or error, is sent on release. This is a write the client may time out on although the server
         * stored it.
         */
        BEFORE_ANSWER
    }

    record Injected(StatusCode code, String message, Boolean retryable) {
    }

    /** Row inserts holding this text in this column are refused. */
    record ValueRefusal(String column, String value, StatusCode code, String message) {
    }

    Faults() {
    }

    /**
     * Fails the next {@code count} requests.
     *
     * @param count how many
     * @param code the GreptimeDB code to answer with (its gRPC code and retry hint follow the server's rules)
     * @param message the status description
     * @return this
     */
    public synchronized Faults failNext(int count, StatusCode code, String message) {
        for (int i = 0; i < count; i++) {
            queue.add(new Injected(code, message, null));
        }
        return this;
    }

    /**
     * Fails every {@code n}-th request from now on (the n-th, 2n-th...); 0 turns it off.
     *
     * @param n the period
     * @param code the GreptimeDB code to answer with
     * @param message the status description
     * @return this
     */
    public synchronized Faults failEvery(int n, StatusCode code, String message) {
        everyN = n;
        every = n > 0 ? new Injected(code, message, null) : null;
        counter = 0;
        return this;
    }

    /**
     * Delays every answer (success or failure).
     *
     * @param delay the delay; zero for none
     * @return this
     */
    public Faults latency(Duration delay) {
        latency = delay;
        return this;
    }

    /**
     * Accepts requests and never answers them (until turned off: requests already held stay unanswered
     * until the server stops). Held requests store nothing; on a bulk (DoPut) stream each batch is held
     * unstored and unanswered, and the stream is never ended by the server, as behind a hung server.
     *
     * @param on true to hold every answer
     * @return this
     */
    public Faults neverRespond(boolean on) {
        neverRespond = on;
        return this;
    }

    /**
     * Delays each bulk (DoPut) answer while the server goes on reading batches, so unanswered batches pile up
     * on the client as they would behind a slow server. Answers keep their order: an error that ends the stream
     * (a refused batch) goes out after the delayed answers of the batches stored before it, as on the server.
     *
     * @param delay the delay; zero for none
     * @return this
     */
    public Faults bulkAckDelay(Duration delay) {
        bulkAckDelay = delay;
        return this;
    }

    /**
     * Stores bulk batches but never answers them.
     *
     * @param on true to withhold every answer
     * @return this
     */
    public Faults bulkNeverAck(boolean on) {
        bulkNeverAck = on;
        return this;
    }

    /**
     * Fails the {@code n}-th bulk batch received from now on (1-based, across streams), ending its stream once the
     * answers of the batches stored before it have gone out (delayed or held ones included).
     *
     * @param n which batch
     * @param code the GreptimeDB code
     * @param message the status description
     * @return this
     */
    public synchronized Faults failBulkBatch(int n, StatusCode code, String message) {
        bulkFailure = new Injected(code, message, null);
        bulkFailAt = bulkBatches + n;
        return this;
    }

    /**
     * Refuses every row insert request holding a row whose column has this text value, the way a server refuses a
     * value it cannot store (the whole request is refused and nothing of it is stored); null turns it off.
     *
     * @param column the column's name
     * @param value the text value refused
     * @param code the GreptimeDB code to answer with
     * @param message the status description
     * @return this
     */
    public Faults refuseValue(String column, String value, StatusCode code, String message) {
        valueRefusal = column == null ? null : new ValueRefusal(column, value, code, message);
        return this;
    }

    /**
     * Holds every write request (each gRPC write path) from now until {@link #release()}. Same as
     * {@code hold(point, r -> true)}.
     *
     * @param point where requests are held
     * @return this
     */
    public Faults hold(HoldPoint point) {
        return hold(point, r -> true);
    }

    /**
     * Holds the matching write requests from now until {@link #release()}: the held unit is a {@code Handle} call,
     * a {@code HandleRequests} stream (held when the client has sent its last message, answered as a whole on
     * release; with {@link HoldPoint#BEFORE_STORE} its messages from the first matching one on are stored on
     * release), or a bulk ({@code DoPut}) batch (with {@link HoldPoint#BEFORE_STORE} the stream's later batches
     * wait behind a held one and count as held too). Requests answered with an error before storing (credentials,
     * database, {@link #failNext}, {@link #neverRespond}) are not held. Calling it again changes the point and the
     * matcher for requests still to come. {@link GreptimeTestServer#stop()}, {@link GreptimeTestServer#close()}
     * and {@link #reset()} release what is held.
     *
     * @param point where requests are held
     * @param which tests each request as it arrives (one {@link RecordedRequest} per Handle call, stream message or
     *     bulk batch; its outcome is null then)
     * @return this
     */
    public Faults hold(HoldPoint point, Predicate<RecordedRequest> which) {
        if (point == null || which == null) {
            throw new IllegalArgumentException("hold needs a point and a matcher, got " + point + " and " + which);
        }
        synchronized (this) {
            holdPoint = point;
            holdWhich = which;
        }
        return this;
    }

    /**
     * Counts the requests held now (0 after {@link #release()}).
     *
     * @return requests held and unanswered
     */
    public synchronized int heldCount() {
        return held.size();
    }

    /**
     * Waits until at least {@code count} requests are held.
     *
     * @param count how many
     * @param timeout the longest wait
     * @return this
     * @throws TimeoutException when fewer are held at the deadline; the message says how many
     * @throws InterruptedException when interrupted
     */
    public synchronized Faults awaitHeld(int count, Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (held.size() < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException("Only " + held.size() + " of " + count + " requests arrived and were held"
                        + " within " + timeout + (holdPoint == null ? " (no hold is set: call hold() before writing)"
                        : "; check that the matcher of hold() accepts the requests the client sends"));
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return this;
    }

    /**
     * Stops holding and lets every held request go on, in arrival order: held before storing, it is stored and
     * answered; held before answering, its answer is sent. Answers to clients that gave up are dropped.
     *
     * @return this
     */
    public Faults release() {
        List<Runnable> go;
        synchronized (this) {
            holdPoint = null;
            holdWhich = null;
            go = new ArrayList<>(held);
            held.clear();
            notifyAll();
        }
        for (Runnable r : go) {
            try {
                r.run();
            } catch (RuntimeException callGone) {
                // The client cancelled (or the server stopped): nobody is left to answer.
            }
        }
        return this;
    }

    /** Where a request that arrives now is held, or null when it is not; the request is described only when asked. */
    HoldPoint holdPoint(java.util.function.Supplier<RecordedRequest> arriving) {
        HoldPoint point;
        Predicate<RecordedRequest> which;
        synchronized (this) {
            point = holdPoint;
            which = holdWhich;
        }
        return point != null && which.test(arriving.get()) ? point : null;
    }

    /** Holds a request whose going on is {@code onRelease}; runs it now when the hold was released meanwhile. */
    void held(Runnable onRelease) {
        synchronized (this) {
            if (holdPoint != null) {
                held.add(onRelease);
                notifyAll();
                return;
            }
        }
        onRelease.run();
    }

    ValueRefusal valueRefusal() {
        return valueRefusal;
    }

    /**
     * Removes every fault and releases held requests.
     *
     * @return this
     */
    public Faults reset() {
        release();
        synchronized (this) {
            resetKnobs();
        }
        return this;
    }

    private void resetKnobs() {
        queue.clear();
        every = null;
        everyN = 0;
        counter = 0;
        latency = Duration.ZERO;
        neverRespond = false;
        bulkAckDelay = Duration.ZERO;
        bulkNeverAck = false;
        bulkFailure = null;
        valueRefusal = null;
    }

    /**
     * Counts errors injected so far.
     *
     * @return the number of requests failed on purpose
     */
    public synchronized long injectedCount() {
        return injected;
    }

    synchronized Injected next() {
        Injected f = queue.poll();
        if (f == null && every != null && ++counter % everyN == 0) {
            f = every;
        }
        if (f != null) {
            injected++;
        }
        return f;
    }

    /** The fault for the next bulk batch: a chosen batch failure first, else the general ones. */
    synchronized Injected nextBulk() {
        bulkBatches++;
        if (bulkFailure != null && bulkBatches == bulkFailAt) {
            Injected f = bulkFailure;
            bulkFailure = null;
            injected++;
            return f;
        }
        return next();
    }

    Duration bulkAckDelay() {
        return bulkAckDelay;
    }

    boolean bulkNeverAck() {
        return bulkNeverAck;
    }

    Duration latency() {
        return latency;
    }

    boolean neverRespond() {
        return neverRespond;
    }
}
