package dev.sluice.internal.client;

import dev.sluice.BatchingWriter;
import dev.sluice.internal.batching.DefaultBatchingWriter;
import dev.sluice.internal.bulk.BulkConnector;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.internal.transport.Endpoints;
import dev.sluice.internal.write.RegularWriter;
import dev.sluice.metrics.MetricsSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The one owner of a client's shutdown, graceful and immediate, for every kind of writer: batching writers flush
 * first, regular writes (retries included), stream messages and bulk batches are answered or failed, the calls
 * and channels end, then the timer, the bulk memory, the metrics and the client's own executor stop. Nothing is
 * left pending: every future completes.
 */
public final class ClientLifecycle {
    private final RegularWriter regular;
    private final Endpoints endpoints;
    private final InFlightLimiter limiter;
    private final BulkConnector bulk;
    private final Set<BatchingWriter> batchingWriters;
    private final ScheduledExecutorService timer;
    private final MetricsSink metrics;
    private final CallbackExecutor callbacks;
    private final ExecutorService ownExecutor;
    private final OwnedThreads threads;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ClientLifecycle.class);
    /** The longest a shutdown waits for the client's own threads to end once their work is done. */
    private static final Duration THREADS_END = Duration.ofSeconds(10);

    /**
     * Creates the client's lifecycle.
     *
     * @param regular regular writes and streams
     * @param endpoints the channels
     * @param limiter the client-wide byte budget, held by every unanswered write, message and batch
     * @param bulk the bulk writers' memory
     * @param batchingWriters the batching writers still open (a live set)
     * @param timer the client's timer
     * @param metrics the client's metrics
     * @param callbacks where calls' callbacks go, told when the client has shut down
     * @param ownExecutor the callback pool the client created, or null when the caller gave one
     * @param threads every thread the client starts, waited for at the end of a shutdown
     */
    public ClientLifecycle(RegularWriter regular, Endpoints endpoints, InFlightLimiter limiter, BulkConnector bulk,
                           Set<BatchingWriter> batchingWriters, ScheduledExecutorService timer, MetricsSink metrics,
                           CallbackExecutor callbacks, ExecutorService ownExecutor, OwnedThreads threads) {
        this.regular = regular;
        this.endpoints = endpoints;
        this.limiter = limiter;
        this.bulk = bulk;
        this.batchingWriters = batchingWriters;
        this.timer = timer;
        this.metrics = metrics;
        this.callbacks = callbacks;
        this.ownExecutor = ownExecutor;
        this.threads = threads;
    }

    /**
     * Cancels every call under way (their futures complete with CANCELLED errors) and closes the connections at
     * once; writes waiting to retry complete with an UNAVAILABLE error, writers still open fail.
     */
    public void shutdownNow() {
        regular.stop();
        cancelCalls();
        closeBatchingWriters();
        stopServices();
    }

    /**
     * Refuses new writes, waits for the ones in flight to be answered, then closes the connections; calls still
     * unanswered at the timeout are cancelled and their futures complete with an error.
     *
     * @param timeout the longest wait
     * @return true when everything finished in time
     */
    public boolean shutdownGracefully(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        // Batching writers flush first, through the still-open client, within this shutdown's timeout.
        closeBatchingWriters(timeout);
        regular.close();
        boolean clean;
        try {
            // Channels refuse calls once shut down, so the calls already made (retries included) go first.
            clean = regular.awaitIdle(timeout.toNanos());
            // Bulk batches and stream messages hold the byte budget until answered: wait for those answers too.
            clean = limiter.awaitEmpty(Math.max(0, deadline - System.nanoTime())) && clean;
            endpoints.shutdown();
            if (clean) {
                // Nothing is unanswered: calls still open are idle bulk or stream writers' calls, which would hold
                // the channels open until the timeout. Ending them fails nothing.
                cancelCalls();
            } else {
                clean = endpoints.awaitTermination(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))) && clean;
            }
        } catch (InterruptedException e) {
            endpoints.shutdown();
            Thread.currentThread().interrupt();
            clean = false;
        }
        regular.stop();
        if (!clean) {
            cancelCalls();
        }
        stopServices();
        return clean;
    }

    /** Closes every batching writer still open: each flushes or fails what it holds; none is left pending. */
    private void closeBatchingWriters() {
        closeBatchingWriters(Duration.ZERO);
    }

    /**
     * Closes every batching writer still open, each waiting at most what is left of {@code timeout} for its batches
     * to be answered; what is not answered by then fails.
     */
    private void closeBatchingWriters(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (BatchingWriter w : new ArrayList<>(batchingWriters)) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            if (w instanceof DefaultBatchingWriter d) {
                d.close(left);
            } else {
                w.close();
            }
        }
    }

    /** Cancels calls under way and lets their errors reach their futures before the callback pool stops. */
    private void cancelCalls() {
        endpoints.shutdownNow();
        try {
            endpoints.awaitTermination(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stopServices() {
        bulk.trim();
        timer.shutdownNow();
        regular.failUnanswered();
        bulk.failUnanswered("the client shut down before the batch was answered; it may or may not have been stored");
        metrics.close();
        callbacks.clientShutDown();
        if (ownExecutor != null) {
            ownExecutor.shutdown();
        }
        endThreads();
    }

    /**
     * Ends the event loops once the callback pool (or the caller's executor) has run everything handed to it, and waits until every thread the
     * client started has ended, so none outlives the shutdown (unless the shutdown runs on one of them, which cannot
     * wait for itself). The order matters: a call's end that gRPC hands to the pool first cancels the call's deadline
     * timer, which lives on the event loops; with the loops already ending that cancel is refused, gRPC logs it as
     * SEVERE and the call's listener never hears the end.
     */
    private void endThreads() {
        if (threads.isOwn()) {
            threads.afterCallbackPool(endpoints::stopEventLoopsLater);
            return;
        }
        try {
            long deadline = System.nanoTime() + THREADS_END.toNanos();
            boolean ended = threads.awaitCallbackPool(THREADS_END);
            if (!callbacks.awaitHandedTasks(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                LOG.warn("the callbackExecutor given in GreptimeOptions had not run all the client's callbacks {} s"
                        + " after its shutdown began; the client's event loops end anyway, and a write whose callback"
                        + " runs later may find them gone. Keep that executor running until the shutdown returns",
                        THREADS_END.toSeconds());
            }
            ended = endpoints.stopEventLoops(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))) && ended;
            ended = ended && threads.join(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            if (!ended) {
                LOG.warn("some of the client's threads were still running {} s after its shutdown",
                        THREADS_END.toSeconds());
            }
        } catch (InterruptedException e) {
            endpoints.stopEventLoopsLater();
            Thread.currentThread().interrupt();
        }
    }
}
