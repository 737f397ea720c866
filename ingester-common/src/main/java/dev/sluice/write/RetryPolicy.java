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
 * <p>Build one with {@link #newBuilder()} (which starts from the defaults below) or change one with
 * {@link #toBuilder()}.
 */
public final class RetryPolicy {
    private static final RetryPolicy NONE = new Builder().maxAttempts(1).backoff(Duration.ZERO, Duration.ZERO)
            .multiplier(1.0).deliveryTimeout(Duration.ofDays(365)).build();

    private final int maxAttempts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final double multiplier;
    private final Duration deliveryTimeout;

    private RetryPolicy(Builder b) {
        if (b.maxAttempts < 1 || b.multiplier < 1 || b.initialBackoff.isNegative()
                || b.maxBackoff.compareTo(b.initialBackoff) < 0 || b.deliveryTimeout.isNegative()
                || b.deliveryTimeout.isZero()) {
            throw new IllegalArgumentException("invalid retry policy: " + b.maxAttempts + " attempts, backoff "
                    + b.initialBackoff + ".." + b.maxBackoff + " x" + b.multiplier + ", delivery timeout "
                    + b.deliveryTimeout);
        }
        this.maxAttempts = b.maxAttempts;
        this.initialBackoff = b.initialBackoff;
        this.maxBackoff = b.maxBackoff;
        this.multiplier = b.multiplier;
        this.deliveryTimeout = b.deliveryTimeout;
    }

    /**
     * Starts a policy from the defaults: attempts until the delivery deadline of 2 minutes (no count limit),
     * backoff caps 100 ms doubling up to 5 s. A server restarting or a frontend failing over within the
     * deadline therefore fails no write; a write still failing after 2 minutes reports its last error.
     *
     * @return a builder holding the defaults
     */
    public static Builder newBuilder() {
        return new Builder();
    }

    /**
     * No retries; the delivery deadline is the call's own timeout.
     *
     * @return a one-attempt policy
     */
    public static RetryPolicy none() {
        return NONE;
    }

    /**
     * Starts a builder holding this policy's values.
     *
     * @return a builder
     */
    public Builder toBuilder() {
        return new Builder().maxAttempts(maxAttempts).backoff(initialBackoff, maxBackoff).multiplier(multiplier)
                .deliveryTimeout(deliveryTimeout);
    }

    /**
     * Attempts in all, the first included (1 means no retry; {@code Integer.MAX_VALUE} means as many as the
     * deadline allows).
     *
     * @return the attempt count
     */
    public int maxAttempts() {
        return maxAttempts;
    }

    /**
     * The backoff cap before the second attempt.
     *
     * @return the first cap
     */
    public Duration initialBackoff() {
        return initialBackoff;
    }

    /**
     * The largest backoff cap.
     *
     * @return the largest cap
     */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /**
     * Growth of the cap per attempt.
     *
     * @return the multiplier, at least 1
     */
    public double multiplier() {
        return multiplier;
    }

    /**
     * The whole budget of one write, from the call to its last answer.
     *
     * @return the delivery timeout
     */
    public Duration deliveryTimeout() {
        return deliveryTimeout;
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

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryPolicy r && r.maxAttempts == maxAttempts && r.initialBackoff.equals(initialBackoff)
                && r.maxBackoff.equals(maxBackoff) && Double.compare(r.multiplier, multiplier) == 0
                && r.deliveryTimeout.equals(deliveryTimeout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxAttempts, initialBackoff, maxBackoff, multiplier, deliveryTimeout);
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxAttempts=" + maxAttempts + ", initialBackoff=" + initialBackoff + ", maxBackoff="
                + maxBackoff + ", multiplier=" + multiplier + ", deliveryTimeout=" + deliveryTimeout + ']';
    }

    /** Builder for {@link RetryPolicy}; starts from the defaults. */
    public static final class Builder {
        private int maxAttempts = Integer.MAX_VALUE;
        private Duration initialBackoff = Duration.ofMillis(100);
        private Duration maxBackoff = Duration.ofSeconds(5);
        private double multiplier = 2.0;
        private Duration deliveryTimeout = Duration.ofMinutes(2);

        private Builder() {
        }

        /**
         * Sets the attempts in all, the first included.
         *
         * @param attempts 1 for no retry, {@code Integer.MAX_VALUE} (the default) for as many as the deadline allows
         * @return this
         */
        public Builder maxAttempts(int attempts) {
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * Sets the backoff bounds.
         *
         * @param initial the cap before the second attempt (default 100 ms)
         * @param max the largest cap (default 5 s)
         * @return this
         */
        public Builder backoff(Duration initial, Duration max) {
            this.initialBackoff = Objects.requireNonNull(initial, "initial");
            this.maxBackoff = Objects.requireNonNull(max, "max");
            return this;
        }

        /**
         * Sets the growth of the cap per attempt.
         *
         * @param multiplier at least 1 (default 2)
         * @return this
         */
        public Builder multiplier(double multiplier) {
            this.multiplier = multiplier;
            return this;
        }

        /**
         * Sets the whole budget of one write, from the call to its last answer.
         *
         * @param timeout a positive duration (default 2 minutes)
         * @return this
         */
        public Builder deliveryTimeout(Duration timeout) {
            this.deliveryTimeout = Objects.requireNonNull(timeout, "deliveryTimeout");
            return this;
        }

        /**
         * Builds the policy.
         *
         * @return the policy
         * @throws IllegalArgumentException when the values do not make a policy
         */
        public RetryPolicy build() {
            return new RetryPolicy(this);
        }
    }
}
