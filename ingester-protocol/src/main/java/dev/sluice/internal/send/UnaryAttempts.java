package dev.sluice.internal.send;

import dev.sluice.internal.error.GrpcErrors;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * The attempts of unary writes ({@code Handle}, DDL): each attempt goes to the endpoint the {@link Route} gives
 * (another than the one that just failed, when there is one), with a gRPC deadline of the request timeout or what
 * is left of the delivery deadline; after a failure {@link AttemptRules#decide} says whether and when to send
 * again, and tells the endpoint. The streaming paths run the same rules in {@link SendEngine}.
 *
 * @param <R> the response message type
 */
public final class UnaryAttempts<R> {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(UnaryAttempts.class);
    /** Less than this left of the delivery deadline, an attempt is not started: no answer could come back in it. */
    private static final long MIN_ATTEMPT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private final Route route;
    private final ScheduledExecutorService timer;
    private final LongSupplier clock;
    private final BooleanSupplier stopped;
    private final Duration requestTimeout;
    private final BiFunction<R, List<String>, Result<WriteOk, Err>> answer;
    private final UnaryOperator<Err> explain;
    private final Runnable onRetry;

    /**
     * Creates the attempts of one client.
     *
     * @param route the client's endpoints
     * @param timer schedules resends
     * @param clock the time in nanoseconds that delivery deadlines are on ({@code System::nanoTime}, or a test's
     *     manual clock, which then also runs {@code timer}); each attempt's gRPC deadline is timed by gRPC itself
     * @param stopped true once the client shuts down: nothing is resent after that
     * @param requestTimeout the longest one attempt may take
     * @param answer reads a response (the server's status in it) as an outcome for the given tables
     * @param explain adds a hint to a failure where the bare message would mislead (or returns it as it is)
     * @param onRetry counts a resend
     */
    public UnaryAttempts(Route route, ScheduledExecutorService timer, LongSupplier clock, BooleanSupplier stopped,
                         Duration requestTimeout,
                         BiFunction<R, List<String>, Result<WriteOk, Err>> answer, UnaryOperator<Err> explain,
                         Runnable onRetry) {
        this.route = route;
        this.timer = timer;
        this.clock = clock;
        this.stopped = stopped;
        this.requestTimeout = requestTimeout;
        this.answer = answer;
        this.explain = explain;
        this.onRetry = onRetry;
    }

    /**
     * Sends a request until it is answered, fails for good, or its delivery deadline passes.
     *
     * @param method the unary method
     * @param request the request
     * @param callOptions compression and hints (the deadline is set per attempt)
     * @param appendMode no resend after an ambiguous failure
     * @param policy attempts, backoff and delivery deadline
     * @param deadline the delivery deadline, on the clock given to the constructor
     * @param names the tables written, named in the outcome
     * @param outcome completed once, with the answer or the last failure; never exceptionally
     * @param <Q> the request type
     */
    public <Q> void send(MethodDescriptor<Q, R> method, Q request, CallOptions callOptions, boolean appendMode,
                         RetryPolicy policy, long deadline, List<String> names,
                         CompletableFuture<Result<WriteOk, Err>> outcome) {
        new Write<>(method, request, callOptions, appendMode, policy, deadline, names, outcome).attempt(1, null);
    }

    /** The attempts of one write, spaced by the policy's backoff. */
    private final class Write<Q> {
        private final MethodDescriptor<Q, R> method;
        private final Q request;
        private final CallOptions callOptions;
        private final boolean appendMode;
        private final RetryPolicy policy;
        private final long deadline;
        private final List<String> names;
        private final CompletableFuture<Result<WriteOk, Err>> future;

        Write(MethodDescriptor<Q, R> method, Q request, CallOptions callOptions, boolean appendMode, RetryPolicy policy,
              long deadline, List<String> names, CompletableFuture<Result<WriteOk, Err>> future) {
            this.method = method;
            this.request = request;
            this.callOptions = callOptions;
            this.appendMode = appendMode;
            this.policy = policy;
            this.deadline = deadline;
            this.names = names;
            this.future = future;
        }

        void attempt(int n, Route.Target avoid) {
            if (future.isDone()) {
                return; // ended meanwhile (cancelled by the client, or failed by its shutdown): nothing more is sent
            }
            long left = Math.min(deadline - clock.getAsLong(), requestTimeout.toNanos());
            Route.Target ep = route.next(avoid);
            if (left < MIN_ATTEMPT_NANOS) {
                // No answer can come back in what is left (a batch that waited for a slot until its deadline, a
                // resend whose timer ran late): nothing is sent, and the error says which endpoint was not tried.
                String why = "the write's deadline passed before " + (n == 1 ? "it" : "its attempt " + n)
                        + " could be sent to " + ep.address() + "; nothing more was sent";
                future.complete(Result.err(GrpcErrors.local(StatusCode.Grpc.DEADLINE_EXCEEDED, why, true, names)));
                return;
            }
            try {
                ClientCall<Q, R> call = ep.channel().newCall(method,
                        callOptions.withDeadlineAfter(Math.max(1, left), TimeUnit.NANOSECONDS));
                AtomicBoolean ended = new AtomicBoolean();
                ClientCalls.asyncUnaryCall(call, request,
                        new StreamObserver<>() {
                            private R response;

                            @Override
                            public void onNext(R value) {
                                response = value;
                            }

                            @Override
                            public void onError(Throwable t) {
                                ended.set(true);
                                failed(n, ep, GrpcErrors.fromThrowable(t, names, ep.address()));
                            }

                            @Override
                            public void onCompleted() {
                                ended.set(true);
                                ep.reached();
                                Result<WriteOk, Err> r = answer.apply(response, names);
                                if (r.isOk()) {
                                    future.complete(r);
                                } else {
                                    failed(n, ep, r.getErr());
                                }
                            }
                        });
                // The outcome completed by someone else (the request cancelled by the client, the client's
                // shutdown) ends the call too, rather than leaving it open until its deadline.
                future.whenComplete((r, t) -> {
                    if (!ended.get()) {
                        call.cancel("the write was ended by the client before it was answered", null);
                    }
                });
            } catch (RuntimeException e) {
                failed(n, ep, GrpcErrors.fromThrowable(e, names, ep.address()));
            }
        }

        private void failed(int n, Route.Target ep, Err failure) {
            if (future.isDone()) {
                return; // ended by the client meanwhile: its call's end is not resent or reported
            }
            Err err = explain.apply(failure);
            long now = clock.getAsLong();
            AttemptRules.Verdict verdict = AttemptRules.decide(ep, err, GrpcErrors.maybeCommitted(err), policy,
                    appendMode, stopped.getAsBoolean(), n, "write", deadline, now, AttemptRules.backoffNanos(policy, n),
                    v -> v.resend() ? "writes are retried with backoff (on another endpoint when one answers) until"
                            + " their retry policy's deliveryTimeout (" + policy.deliveryTimeout().toSeconds()
                            + " s) runs out, this one until about "
                            + Instant.now().plusNanos(Math.max(0, deadline - now))
                                    .truncatedTo(ChronoUnit.SECONDS) + ", then fail with this error"
                            : "the write fails after " + n + (n == 1 ? " attempt" : " attempts") + " (its retry"
                            + " policy allows no more)");
            if (verdict.resend()) {
                onRetry.run();
                try {
                    timer.schedule(() -> attempt(n + 1, ep), verdict.waitNanos(), TimeUnit.NANOSECONDS);
                    return;
                } catch (RejectedExecutionException e) {
                    // the client is shutting down: report the last failure
                }
            }
            if (n > 1) {
                LOG.warn("write to {} failed after {} attempts: {}", names, n, err.message());
            }
            future.complete(Result.err(n == 1 ? err : new Err(err.code(), err.grpcCode(),
                    err.message() + " (after " + n + " attempts)", err.retryable(), err.tables(), err.cause())));
        }
    }
}
