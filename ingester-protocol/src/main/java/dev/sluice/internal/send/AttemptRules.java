package dev.sluice.internal.send;

import dev.sluice.internal.error.GrpcErrors;
import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one place that decides whether a failed write is sent again, and after what wait: for unary writes, streams
 * and bulk batches alike. Whether a failure is retryable at all (the server's retry hint, then the status) is
 * {@code GrpcErrors}'; this class adds the client's rules: nothing is resent once the client shuts down, an
 * ambiguous failure (the server may have committed the write) is not resent to an append-mode table, a write has
 * at most the policy's attempts, and a resend must fit in the delivery deadline after the policy's backoff (with
 * its jitter. {@link #decide} applies them after a failed attempt and tells the attempt's endpoint ({@link Route})
 * how it went, so that endpoint choice and ejection follow the same failures on every path.
 */
public final class AttemptRules {
    /** Why nothing is resent once the client shuts down. */
    public static final String SHUTTING_DOWN = "the client is shutting down";

    private AttemptRules() {
    }

    /**
     * What follows a failed attempt.
     *
     * @param resend whether the write is sent again
     * @param waitNanos the backoff before it is
     * @param refusal why a retryable failure is not sent again, or null (resent, or not retryable at all)
     */
    public record Verdict(boolean resend, long waitNanos, String refusal) {
    }

    /**
     * Decides what follows a failed attempt and tells its endpoint: a transport failure counts towards ejecting
     * it, any answer of the server shows it alive.
     *
     * @param target the attempt's endpoint, or null when it had none
     * @param err what failed
     * @param ambiguous whether the attempt may have been committed
     * @param policy the retry policy
     * @param appendMode whether the table keeps every copy
     * @param stopped whether the client is shutting down
     * @param attemptsMade attempts made so far
     * @param what what is sent, for the reason ("batch 7")
     * @param deadline the delivery deadline (on the client's clock), or 0 for none
     * @param now the time now, on the same clock
     * @param waitNanos the backoff before the next attempt
     * @param next what the client does next, said with the first transport failure of a run
     * @return the verdict
     */
    public static Verdict decide(Route.Target target, Err err, boolean ambiguous, RetryPolicy policy,
                                 boolean appendMode, boolean stopped, int attemptsMade, String what, long deadline,
                                 long now, long waitNanos, Function<Verdict, String> next) {
        String refusal = err.retryable() ? refusal(policy, appendMode, stopped, ambiguous, attemptsMade, what,
                deadline, now, waitNanos) : null;
        Verdict v = new Verdict(err.retryable() && refusal == null, waitNanos, refusal);
        report(target, err, () -> next.apply(v));
        return v;
    }

    /**
     * Tells an attempt's endpoint how the attempt ended.
     *
     * @param target the endpoint, or null
     * @param err what failed
     * @param next what the client does next, said with the first transport failure of a run
     */
    public static void report(Route.Target target, Err err, Supplier<String> next) {
        if (target == null) {
            return;
        }
        if (GrpcErrors.transportFailure(err)) {
            target.transportFailed(err.message(), next);
        } else {
            target.reached();
        }
    }

    /**
     * Returns the wait before the next attempt.
     *
     * @param policy the retry policy
     * @param attemptsMade attempts made so far (at least 1 after a failure)
     * @return the backoff of the next attempt, with jitter, in nanoseconds
     */
    public static long backoffNanos(RetryPolicy policy, int attemptsMade) {
        return policy.backoff(attemptsMade + 1).toNanos();
    }

    /**
     * Tells why a retryable failure may not be sent again, or that it may.
     *
     * @param policy the retry policy
     * @param appendMode whether the table is written in append mode (every copy is kept)
     * @param stopped whether the client is shutting down
     * @param ambiguous whether the failed attempt may have been committed (a transport failure, a deadline)
     * @param attemptsMade attempts made so far
     * @param what what is sent, for the reason ("batch 7")
     * @param deadline the delivery deadline ({@code System.nanoTime()}), or 0 for none
     * @param now the time now ({@code System.nanoTime()})
     * @param waitNanos the backoff before the next attempt
     * @return why not, or null when the next attempt may be made after {@code waitNanos}
     */
    public static String refusal(RetryPolicy policy, boolean appendMode, boolean stopped, boolean ambiguous,
                                 int attemptsMade, String what, long deadline, long now, long waitNanos) {
        if (stopped) {
            return SHUTTING_DOWN;
        }
        if (ambiguous && appendMode) {
            return "append-mode tables are not resent after an ambiguous failure";
        }
        if (attemptsMade >= policy.maxAttempts()) {
            return what + " used its " + policy.maxAttempts() + " attempts";
        }
        if (deadline != 0 && now + waitNanos >= deadline) {
            return "the delivery deadline of " + policy.deliveryTimeout().toMillis() + " ms passed";
        }
        return null;
    }
}
