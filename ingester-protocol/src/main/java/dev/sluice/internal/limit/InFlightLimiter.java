package dev.sluice.internal.limit;

import dev.sluice.GreptimeOptions;
import dev.sluice.LimitExceededException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The client-wide budget of bytes (and regular requests) waiting to be sent or in flight. Waiters are served
 * in arrival order and every wait is bounded.
 */
public final class InFlightLimiter {
    private final Semaphore bytes;
    private final Semaphore requests;
    private final int maxBytes;
    private final boolean block;
    private final long waitNanos;

    /**
     * Creates the limiter.
     *
     * @param options client options
     */
    public InFlightLimiter(GreptimeOptions options) {
        this.maxBytes = (int) options.maxInFlightBytes();
        this.bytes = new Semaphore(maxBytes, true);
        this.requests = options.maxInFlightRequests() > 0 ? new Semaphore(options.maxInFlightRequests(), true) : null;
        this.block = options.whenFull() == dev.sluice.write.WhenFull.Block;
        this.waitNanos = options.maxBlock().toNanos();
    }

    /** Room taken, to be given back exactly once. */
    public final class Permit {
        private int bytesHeld;
        private final boolean requestHeld;
        private boolean released;

        private Permit(int bytesHeld, boolean requestHeld) {
            this.bytesHeld = bytesHeld;
            this.requestHeld = requestHeld;
        }

        /**
         * Gives back the room taken beyond {@code size} bytes, for a message found smaller than the room reserved
         * for it; nothing when it is not smaller or the room was given back.
         *
         * @param size the bytes to keep
         */
        public void shrinkTo(long size) {
            int keep = (int) Math.min(size, maxBytes);
            int back;
            synchronized (this) {
                if (released || keep >= bytesHeld) {
                    return;
                }
                back = bytesHeld - keep;
                bytesHeld = keep;
            }
            bytes.release(back);
        }

        /** Gives the room back; later calls do nothing. */
        public void release() {
            int held;
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
                held = bytesHeld;
            }
            bytes.release(held);
            if (requestHeld) {
                requests.release();
            }
        }
    }

    /**
     * Takes room for a message (a message larger than the whole budget takes all of it).
     *
     * @param size encoded bytes
     * @param request whether it also counts as a regular request
     * @return the permit
     * @throws LimitExceededException when no room came within the wait (or at once, under fail-fast)
     */
    public Permit acquire(long size, boolean request) {
        return acquire(size, request, NEVER);
    }

    /** A wait nobody gives up. */
    private static final BooleanSupplier NEVER = () -> false;

    /** How often a wait that can be given up looks whether it is. */
    private static final long GIVE_UP_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * Takes room as {@link #acquire(long, boolean)} does, giving up the wait as soon as {@code givenUp} says so
     * (looked at every few milliseconds).
     *
     * @param size encoded bytes
     * @param request whether it also counts as a regular request
     * @param givenUp true once the caller no longer wants the room (its writer closed, say)
     * @return the permit
     * @throws LimitExceededException when no room came within the wait, or the wait was given up
     */
    public Permit acquire(long size, boolean request, BooleanSupplier givenUp) {
        int n = (int) Math.min(size, maxBytes);
        long deadline = System.nanoTime() + waitNanos;
        boolean haveRequest = false;
        if (request && requests != null) {
            if (!take(requests, 1, deadline, givenUp)) {
                throw new LimitExceededException("maxInFlightRequests reached" + waited());
            }
            haveRequest = true;
        }
        if (!take(bytes, n, deadline, givenUp)) {
            if (haveRequest) {
                requests.release();
            }
            throw new LimitExceededException("maxInFlightBytes (" + maxBytes + ") reached: " + (maxBytes - bytes.availablePermits())
                    + " bytes waiting or in flight, " + n + " more needed" + waited());
        }
        return new Permit(n, haveRequest);
    }

    private String waited() {
        if (Thread.currentThread().isInterrupted()) {
            return " and the waiting thread was interrupted";
        }
        return block ? " and no room came within " + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms" : " (fail-fast policy)";
    }

    private boolean take(Semaphore s, int n, long deadline, BooleanSupplier givenUp) {
        if (!s.hasQueuedThreads() && s.tryAcquire(n)) {
            return true;
        }
        if (!block) {
            return false;
        }
        try {
            if (givenUp == NEVER) {
                return s.tryAcquire(n, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            while (!givenUp.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                if (s.tryAcquire(n, Math.min(left, GIVE_UP_POLL_NANOS), TimeUnit.NANOSECONDS)) {
                    return true;
                }
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Returns the bytes taken now.
     *
     * @return bytes waiting or in flight
     */
    public long bytesInUse() {
        return maxBytes - bytes.availablePermits();
    }

    /**
     * Waits until no byte is taken (every message answered or failed), polling every few milliseconds: used once,
     * at shutdown.
     *
     * @param timeoutNanos the longest wait
     * @return false when bytes were still taken at the timeout
     * @throws InterruptedException when interrupted
     */
    public boolean awaitEmpty(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (bytesInUse() > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(5)));
        }
        return true;
    }
}
