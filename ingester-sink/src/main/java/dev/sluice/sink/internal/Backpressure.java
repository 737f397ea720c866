package dev.sluice.sink.internal;

import dev.sluice.LimitExceededException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A bounded wait on a batching writer whose buffer is full: a write is tried again (each try blocks for the
 * writer's own {@code maxBlock}) until it is taken or the budget runs out, then fails with a message that says how
 * long GreptimeDB did not take rows and what to do about it.
 */
public final class Backpressure {
    private final Duration budget;
    private final String advice;

    /** The buffer stayed full for the whole budget; its message says what to do. */
    public static final class BufferStayedFull extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BufferStayedFull(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Creates a wait.
     *
     * @param budget how long to keep trying after the first try (zero for one try)
     * @param advice what the user can do, in the integration's terms (for example which setting to raise)
     */
    public Backpressure(Duration budget, String advice) {
        if (budget.isNegative()) {
            throw new IllegalArgumentException("backpressure budget must not be negative: " + budget);
        }
        this.budget = budget;
        this.advice = advice;
    }

    /**
     * Hands a row to the writer, trying again while its buffer is full, within the budget.
     *
     * @param attempt one try (a batching writer's {@code write}); throws {@link LimitExceededException} when the
     *     buffer stayed full for the writer's {@code maxBlock}
     * @param betweenTries runs after each refused try, before the next (for example to throw a failure that
     *     arrived meanwhile)
     * @return what the accepted try returned
     * @throws BufferStayedFull when no try was accepted within the budget
     */
    public CompletableFuture<Void> write(Supplier<CompletableFuture<Void>> attempt, Runnable betweenTries) {
        long deadline = System.nanoTime() + budget.toNanos();
        while (true) {
            try {
                return attempt.get();
            } catch (LimitExceededException e) {
                betweenTries.run();
                if (System.nanoTime() - deadline >= 0) {
                    throw new BufferStayedFull("GreptimeDB did not take rows: " + e.getMessage()
                            + (budget.isZero() ? "" : " (tried again for " + budget.toMillis() + " ms)") + ". " + advice, e);
                }
            }
        }
    }
}
