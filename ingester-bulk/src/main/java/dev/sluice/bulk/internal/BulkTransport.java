package dev.sluice.bulk.internal;

import io.grpc.CallOptions;
import io.grpc.Channel;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What a bulk writer borrows from its client: a channel (carrying database and credential headers), call
 * options (compression), the executor futures complete on, and a timer for per-batch deadlines.
 *
 * @param channels the next healthy endpoint's shared channel, each time it is asked
 * @param callOptions options for the DoPut call
 * @param callbackExecutor where futures complete; never a gRPC I/O thread
 * @param timer schedules batch deadlines
 * @param events receives batch outcomes (metrics)
 */
public record BulkTransport(Supplier<Channel> channels, CallOptions callOptions, Executor callbackExecutor,
                            ScheduledExecutorService timer, BulkEvents events) {
}
