package dev.sluice.internal.send;

import dev.sluice.internal.error.GrpcErrors;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.write.Err;
import dev.sluice.write.StatusCode;
import io.grpc.CallOptions;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.List;
import org.slf4j.Logger;

/**
 * A writer on the client's send engine, for {@code HandleRequests} streams and bulk {@code DoPut} alike: opens the
 * engine's calls (naming each call's endpoint in transport failures), reads how a call ended, and tells of resends
 * (the retry metric, and one warning per run of failures). What a path does with answers, clean ends, failures and
 * the end of the engine is its {@link Path}'s.
 *
 * @param <Q> the request message type
 * @param <R> the response message type
 * @param <E> the path's entry type
 */
public final class EngineWriter<Q, R, E extends SendEngine.Entry<Q>> {
    private final Path<R, E> path;
    private final MetricsSink metrics;
    private final Logger log;
    private final SendEngine<Q, R, E> engine;
    /** {@code host:port} of the endpoint the current call went to, named in transport failures. */
    private volatile String authority;
    /**
     * Set by the first break of a run that is not the server refusing for now (warned about), cleared by the next
     * answer: later ones are logged at DEBUG.
     */
    private volatile boolean breaking;

    /**
     * What one path does with its engine's outcomes; {@link #cleanEnd} runs under the engine's lock and must not
     * block.
     *
     * @param <R> the response message type
     * @param <E> the path's entry type
     */
    public interface Path<R, E> {
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
         * Tells whether a status from the server leaves unanswered entries possibly written: true when the server
         * answers the call as a whole, false when it answers entry by entry (then a status ends the call at the
         * entry it failed, and later ones were not read).
         *
         * @return true when such a failure is ambiguous
         */
        boolean answeredAsAWhole();

        /**
         * A response arrived.
         *
         * @param response the message
         * @param fromCurrentCall false for a late response of a call a resend replaced
         */
        void onResponse(R response, boolean fromCurrentCall);

        /**
         * Reads a call the server ended cleanly; under the engine's lock.
         *
         * @param unanswered entries still pending
         * @return how the engine goes on
         */
        SendEngine.Ending cleanEnd(int unanswered);

        /**
         * Entries failed for good, and the engine ended.
         *
         * @param entries the entries, oldest first (may be empty)
         * @param broken what broke
         * @param notResent why they were not resent although the failure was retryable, or null
         */
        void failed(List<E> entries, SendEngine.Broken broken, String notResent);

        /**
         * Says a break in the log: the warning of the first break of a run, which says what happens next.
         *
         * @param broken what broke
         * @param entries how many are resent
         * @return the sentence
         */
        String firstBreak(SendEngine.Broken broken, int entries);

        /**
         * Says a later break, or a server refusing for now, in the log.
         *
         * @param broken what broke
         * @param entries how many are resent
         * @return the sentence
         */
        String nextBreak(SendEngine.Broken broken, int entries);

        /** The engine finished: half-closed with nothing pending, answered for the last time, failed or aborted. */
        default void finished() {
        }
    }

    /**
     * Creates the writer and its engine; no call is opened yet.
     *
     * @param settings the engine's timers, policy and limits
     * @param route chooses each call's endpoint and hears how the call ended
     * @param method the streaming call
     * @param options its call options
     * @param metrics where resends are counted
     * @param log where breaks are told
     * @param path what the path does with outcomes
     */
    public EngineWriter(SendEngine.Settings<Q> settings, Route route, MethodDescriptor<Q, R> method,
                        CallOptions options, MetricsSink metrics, Logger log, Path<R, E> path) {
        this.path = path;
        this.metrics = metrics;
        this.log = log;
        this.engine = new SendEngine<>(settings, route, ch -> {
            authority = ch.authority();
            return ch.newCall(method, options);
        }, new Events());
    }

    /**
     * Returns the engine.
     *
     * @return the engine
     */
    public SendEngine<Q, R, E> engine() {
        return engine;
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
    public void answered() {
        if (breaking) {
            breaking = false;
        }
    }

    private final class Events implements SendEngine.Handler<R, E> {
        @Override
        public void onResponse(R response, boolean fromCurrentCall) {
            path.onResponse(response, fromCurrentCall);
        }

        @Override
        public SendEngine.Ending ended(Status status, Metadata trailers, String timeout, int unanswered) {
            if (timeout != null) {
                return new SendEngine.Broken(localError(StatusCode.Grpc.DEADLINE_EXCEEDED, timeout, true), true, null);
            }
            if (!status.isOk()) {
                Throwable cause = status.asRuntimeException(trailers);
                Err err = error(cause);
                return new SendEngine.Broken(err, path.answeredAsAWhole() || err.code() < 0, cause);
            }
            return path.cleanEnd(unanswered);
        }

        @Override
        public void failed(List<E> entries, SendEngine.Broken broken, String notResent) {
            path.failed(entries, broken, notResent);
        }

        @Override
        public void resending(SendEngine.Broken broken, int entries) {
            metrics.retry(path.metric());
            if (broken.serverRefusal()) {
                // The server refused for now (rate limiting, a region moving): part of normal operation.
                log.info("{}", path.nextBreak(broken, entries));
            } else if (!breaking) {
                breaking = true;
                log.warn("{}", path.firstBreak(broken, entries));
            } else if (log.isDebugEnabled()) {
                log.debug("{}", path.nextBreak(broken, entries));
            }
        }

        @Override
        public void finished() {
            path.finished();
        }
    }
}
