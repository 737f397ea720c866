package dev.sluice.testkit;

import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Fault injection for a {@link GreptimeTestServer}: errors with a chosen code, latency, and requests that
 * are never answered. Faults apply to write and DDL requests (each message of a stream counts as one),
 * never to health checks. A failed request stores nothing. Thread-safe.
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
     * on the client as they would behind a slow server.
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
     * Fails the {@code n}-th bulk batch received from now on (1-based, across streams), ending its stream.
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

    ValueRefusal valueRefusal() {
        return valueRefusal;
    }

    /**
     * Removes every fault.
     *
     * @return this
     */
    public synchronized Faults reset() {
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
        return this;
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
