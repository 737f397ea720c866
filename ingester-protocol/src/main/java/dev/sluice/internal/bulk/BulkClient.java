package dev.sluice.internal.bulk;

import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.internal.send.EngineWriter;
import dev.sluice.internal.send.Route;
import dev.sluice.metrics.MetricsSink;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * What a client's bulk writers share with it.
 *
 * @param route the client's endpoints: where each stream goes, and what hears how it ended
 * @param callbackExecutor where futures complete: never a gRPC I/O thread
 * @param timer batch deadlines and stream reopenings
 * @param clock the time the timer's deadlines are on, in nanoseconds
 * @param limiter the client-wide byte budget every batch takes from until answered
 * @param metrics where batch outcomes are reported
 * @param stopped true once the client shuts down: nothing is sent or resent after that
 */
record BulkClient(Route route, Executor callbackExecutor, ScheduledExecutorService timer, LongSupplier clock,
                  InFlightLimiter limiter, MetricsSink metrics, BooleanSupplier stopped) {
    /**
     * Returns what a writer on the send engine takes from the client.
     *
     * @return the budget, callback executor and metrics
     */
    EngineWriter.Shared shared() {
        return new EngineWriter.Shared(limiter, callbackExecutor, metrics);
    }
}
