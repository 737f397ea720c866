package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.function.ThrowingSupplier;

/**
 * Waits in tests, on conditions rather than on the clock (shared with ingester-bulk, ingester-it and
 * ingester-kafka-connect through this module's test jar). {@link #until} waits for something that must happen and
 * returns as soon as it has; {@link #happensWithin} is for proving that something does not happen, and is the one
 * wait that lasts its whole window when all is well. {@link #returns} runs a call that must come back, failing the
 * test only when it hangs: it never measures how fast the call was.
 */
public final class Await {
    private static final long POLL_MILLIS = 10;

    /**
     * How long a call may take before {@link #returns} calls it hung: far above any schedule of the client, so a busy
     * machine cannot reach it. A test that proves a call does not wait out a timeout sets that timeout longer than
     * this guard.
     */
    public static final Duration HANG_GUARD = Duration.ofMinutes(2);

    /**
     * A timeout, deadline or limit longer than {@link #HANG_GUARD}: a call given it, that returns within the guard,
     * did not wait it out.
     */
    public static final Duration BEYOND_THE_HANG_GUARD = HANG_GUARD.multipliedBy(5);

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

    /**
     * Runs a call that must return (or throw) rather than hang; fails the test when it is still running after
     * {@link #HANG_GUARD}. The call runs on another thread, so it must not depend on the caller's interrupt status.
     *
     * @param what what is called, for the failure message
     * @param call the call
     */
    public static void returns(String what, Executable call) {
        assertTimeoutPreemptively(HANG_GUARD, call, () -> what + " hung for " + HANG_GUARD);
    }

    /**
     * Runs a call that must return rather than hang, and gives its result; see {@link #returns(String, Executable)}.
     *
     * @param what what is called, for the failure message
     * @param call the call
     * @param <T>  the result's type
     * @return the call's result
     */
    public static <T> T returns(String what, ThrowingSupplier<T> call) {
        return assertTimeoutPreemptively(HANG_GUARD, call, () -> what + " hung for " + HANG_GUARD);
    }
}
