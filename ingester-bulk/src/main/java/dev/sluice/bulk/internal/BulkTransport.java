package dev.sluice.bulk.internal;

import dev.sluice.internal.send.DirectHandOff;
import dev.sluice.write.RetryPolicy;
import io.grpc.CallOptions;
import io.grpc.Channel;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What a bulk writer borrows from its client: a channel (carrying database and credential headers), call
 * options (compression), the executor futures complete on, a timer for per-batch deadlines and retries, the
 * retry policy, and the client-wide memory budget.
 *
 * @param channels the next healthy endpoint's shared channel, each time it is asked
 * @param callOptions options for the DoPut call
 * @param callbackExecutor where futures complete; never a gRPC I/O thread
 * @param timer schedules batch deadlines and stream reopenings
 * @param events receives batch outcomes (metrics)
 * @param retryPolicy how often and how long a batch is resent on a new stream after a retryable failure
 * @param appendMode whether the table is written in append mode (no resend after an ambiguous outcome)
 * @param budget the client-wide byte budget every batch takes from until it is answered
 * @param stopped true once the client is shutting down: nothing is resent after that
 * @param allocator the client's Arrow root allocator; each writer takes a capped child of it
 * @param handOff gives large batch buffers to the transport without a copy, where it takes them
 */
public record BulkTransport(Supplier<Channel> channels, CallOptions callOptions, Executor callbackExecutor,
                            ScheduledExecutorService timer, BulkEvents events, RetryPolicy retryPolicy,
                            boolean appendMode, BulkBudget budget, BooleanSupplier stopped,
                            BufferAllocator allocator, DirectHandOff handOff) {
}
