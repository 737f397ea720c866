package dev.sluice.write;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When and how often a failed write is sent again: exponential backoff with full jitter, bounded by an
 * attempt count and by one delivery deadline that covers waiting, every attempt and the answer.
 *
 * <p>What is retried (see {@code GreptimeDB}): failures the server marks retryable, UNAVAILABLE and
 * RESOURCE_EXHAUSTED (transport failures, overload, rate limiting), region migration (4007), and deadlines
 * and cancellations, except on tables written with the {@code append_mode=true} hint, where a timed-out
 * request may have been committed and a resend would duplicate its rows. Never retried: invalid data, unknown
 * tables, columns or databases, auth failures, oversized requests. Tables created in append mode without the
 * hint on this write cannot be recognised: give such writes {@code append_mode=true} in their Context, or use
 * {@link #none()}.
 *
 * @param maxAttempts attempts in all, the first included (1 means no retry; {@code Integer.MAX_VALUE} means
 *     as many as the deadline allows)
 * @param initialBackoff the backoff cap before the second attempt
 * @param maxBackoff the largest backoff cap
 * @param multiplier growth of the cap per attempt
 * @param deliveryTimeout the whole budget of one write, from the call to its last answer
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, double multiplier,
                          Duration deliveryTimeout) {
    /** Checks the values. */
    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(deliveryTimeout, "deliveryTimeout");
        if (maxAttempts < 1 || multiplier < 1 || initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0
                || deliveryTimeout.isNegative() || deliveryTimeout.isZero()) {
            throw new IllegalArgumentException("invalid retry policy: " + maxAttempts + " attempts, backoff "
                    + initialBackoff + ".." + maxBackoff + " x" + multiplier + ", delivery timeout " + deliveryTimeout);
        }
    }

    /**
     * The default: attempts until the delivery deadline of 2 minutes (no count limit), backoff caps 100 ms
     * doubling up to 5 s. A server restarting or a frontend failing over within the deadline therefore fails no
     * write; a write still failing after 2 minutes reports its last error.
     *
     * @return the default policy
     */
    public static RetryPolicy defaults() {
        return new RetryPolicy(Integer.MAX_VALUE, Duration.ofMillis(100), Duration.ofSeconds(5), 2.0, Duration.ofMinutes(2));
    }

    /**
     * No retries; the delivery deadline is the call's own timeout.
     *
     * @return a one-attempt policy
     */
    public static RetryPolicy none() {
        return new RetryPolicy(1, Duration.ZERO, Duration.ZERO, 1.0, Duration.ofDays(365));
    }

    /**
     * Copies with another attempt count.
     *
     * @param attempts attempts in all
     * @return a new policy
     */
    public RetryPolicy withMaxAttempts(int attempts) {
        return new RetryPolicy(attempts, initialBackoff, maxBackoff, multiplier, deliveryTimeout);
    }

    /**
     * Copies with another delivery deadline.
     *
     * @param timeout the budget of one write
     * @return a new policy
     */
    public RetryPolicy withDeliveryTimeout(Duration timeout) {
        return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, multiplier, timeout);
    }

    /**
     * Copies with other backoff bounds.
     *
     * @param initial the first cap
     * @param max the largest cap
     * @return a new policy
     */
    public RetryPolicy withBackoff(Duration initial, Duration max) {
        return new RetryPolicy(maxAttempts, initial, max, multiplier, deliveryTimeout);
    }

    /**
     * Draws the wait before an attempt: uniform in [0, cap], the cap growing by {@code multiplier} per attempt.
     *
     * @param attempt the attempt about to be made, 2 for the first retry
     * @return the wait
     */
    public Duration backoff(int attempt) {
        double cap = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, attempt - 2));
        long capped = (long) Math.min(cap, maxBackoff.toNanos());
        return Duration.ofNanos(capped <= 0 ? 0 : ThreadLocalRandom.current().nextLong(capped + 1));
    }
}
