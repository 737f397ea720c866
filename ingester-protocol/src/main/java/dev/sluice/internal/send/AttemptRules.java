package dev.sluice.internal.send;

import dev.sluice.write.RetryPolicy;

/**
 * The one place that decides whether a failed write is sent again, and after what wait: for unary writes, streams
 * and bulk batches alike. Whether a failure is retryable at all (the server's retry hint, then the status) is
 * {@code GrpcErrors}'; this class adds the client's rules: nothing is resent once the client shuts down, an
 * ambiguous failure (the server may have committed the write) is not resent to an append-mode table, a write has
 * at most the policy's attempts, and a resend must fit in the delivery deadline after the policy's backoff (with
 * its jitter). Stateless, and allocation-free when a resend is allowed.
 */
public final class AttemptRules {
    /** Why nothing is resent once the client shuts down. */
    public static final String SHUTTING_DOWN = "the client is shutting down";

    private AttemptRules() {
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
