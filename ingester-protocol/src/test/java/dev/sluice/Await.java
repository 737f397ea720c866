package dev.sluice;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits in tests, on conditions rather than on the clock (shared with ingester-bulk, ingester-it and
 * ingester-kafka-connect through this module's test jar). {@link #until} waits for something that must happen and
 * returns as soon as it has; {@link #happensWithin} is for proving that something does not happen, and is the one
 * wait that lasts its whole window when all is well.
 */
public final class Await {
    private static final long POLL_MILLIS = 10;

    private Await() {
    }

    /**
     * Waits until the condition holds, failing the test if it does not within the bound.
     *
     * @param what      what is awaited, for the failure message
     * @param bound     how long to wait at most (generous: it is reached only when the test fails)
     * @param condition the condition, polled
     */
    public static void until(String what, Duration bound, BooleanSupplier condition) {
        if (!happensWithin(bound, condition)) {
            fail("not within " + bound + ": " + what);
        }
    }

    /**
     * Polls the condition for the window, returning as soon as it holds.
     *
     * @param window    how long to watch
     * @param condition the condition, polled
     * @return whether the condition held within the window
     */
    public static boolean happensWithin(Duration window, BooleanSupplier condition) {
        return happensBy(System.nanoTime() + window.toNanos(), condition);
    }

    /**
     * Polls the condition until a deadline shared by several waits, returning as soon as it holds.
     *
     * @param end       the deadline, on {@link System#nanoTime()}
     * @param condition the condition, polled
     * @return whether the condition held by the deadline
     */
    public static boolean happensBy(long end, BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            try {
                Thread.sleep(POLL_MILLIS); // one poll of the condition, inside the bound
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting");
            }
        }
        return true;
    }
}
