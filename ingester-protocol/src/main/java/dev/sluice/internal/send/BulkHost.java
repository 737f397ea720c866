package dev.sluice.internal.send;

import dev.sluice.BufferCache;
import dev.sluice.internal.send.DirectHandOff;
import dev.sluice.internal.send.Route;
import dev.sluice.write.Err;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * Everything a bulk writer borrows from its client, in one place: endpoint choice, the client-wide byte budget,
 * the executors, the lifecycle, the zero-copy hand-off to the transport, and where batch outcomes are reported.
 */
public interface BulkHost {
    /**
     * Returns the client's endpoints: where each stream goes, and what hears how it ended.
     *
     * @return the route
     */
    Route route();

    /**
     * Returns where futures complete: never a gRPC I/O thread.
     *
     * @return the callback executor
     */
    Executor callbackExecutor();

    /**
     * Returns the client's timer, for batch deadlines and stream reopenings.
     *
     * @return the timer
     */
    ScheduledExecutorService timer();

    /**
     * Returns the time the timer's deadlines are on, in nanoseconds: {@code System.nanoTime()} unless a test gave
     * the client a manual clock and timer.
     *
     * @return the clock
     */
    default LongSupplier clock() {
        return System::nanoTime;
    }

    /**
     * Takes room for a batch from the client-wide byte budget, waiting as the client's limit policy says (bounded).
     *
     * @param bytes the batch's encoded size
     * @return gives the room back; safe to call more than once
     * @throws RuntimeException naming the limit when no room came in time
     */
    Runnable acquire(long bytes);

    /**
     * Tells whether the client is shutting down: nothing is resent after that.
     *
     * @return true once shutdown began
     */
    boolean stopped();

    /**
     * Returns the hand-off that gives large batch buffers to the transport without a copy, where it takes them.
     *
     * @return the hand-off
     */
    DirectHandOff handOff();

    /**
     * Returns how much released off-heap memory the client keeps for reuse, and for how long.
     *
     * @return the cache settings
     */
    BufferCache bufferCache();

    /**
     * A batch was acknowledged (for metrics; called on callback threads).
     *
     * @param table the table
     * @param rows rows the server wrote
     * @param bytes the batch's message size
     * @param nanos from sending to the answer
     */
    void acked(String table, long rows, long bytes, long nanos);

    /**
     * A batch failed for good.
     *
     * @param err what the server or transport said, or null for the writer's own failures
     */
    void failed(Err err);

    /**
     * Reads a failure as the client's other paths do: the server's code and retry hint, or the transport's cause
     * with the endpoint named.
     *
     * @param failure what the call or the transport threw
     * @param tables the tables concerned
     * @param authority the endpoint's {@code host:port}, or null
     * @return the error
     */
    Err error(Throwable failure, java.util.List<String> tables, String authority);

    /** A broken stream was reopened and its unanswered batches resent. */
    void replayed();
}
