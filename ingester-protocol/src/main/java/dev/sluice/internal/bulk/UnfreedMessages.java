package dev.sluice.internal.bulk;

import java.util.concurrent.TimeUnit;

/**
 * The messages a bulk writer unloaded whose memory is not freed yet (kept for a resend, or still read by the
 * transport), and the closing of the writer's memory once there are none. Each message runs this when its memory is
 * freed, on any thread.
 */
final class UnfreedMessages implements Runnable {
    private final Runnable closeMemory;
    /** Messages unloaded and not freed yet; guarded by {@code this}. */
    private int unfreed;
    /** Set when closing found messages still out: the last one freed closes the memory; guarded by {@code this}. */
    private boolean closeWhenFreed;

    /**
     * Creates the count.
     *
     * @param closeMemory closes the writer's memory, once
     */
    UnfreedMessages(Runnable closeMemory) {
        this.closeMemory = closeMemory;
    }

    /** A message was unloaded: its memory is freed later, by {@link #run()}. */
    synchronized void unloaded() {
        unfreed++;
    }

    /** A message's memory is freed. */
    @Override
    public void run() {
        boolean closeNow;
        synchronized (this) {
            unfreed--;
            notifyAll();
            closeNow = unfreed == 0 && closeWhenFreed;
            if (closeNow) {
                closeWhenFreed = false; // kept until the last one: an earlier one freed must not cancel the close
            }
        }
        if (closeNow) {
            closeMemory.run();
        }
    }

    /**
     * Closes the writer's memory once no message holds any: now, after waiting at most {@code waitNanos} for the
     * transport to let go of what it still reads, or else when the last message still out is freed.
     *
     * @param waitNanos how long to wait
     * @return 0 when the memory is closed; else how many messages are still out (the last of them closes it)
     */
    int closeWhenFreed(long waitNanos) {
        long deadline = System.nanoTime() + waitNanos;
        synchronized (this) {
            boolean interrupted = false;
            long left;
            while (unfreed > 0 && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException ie) {
                    interrupted = true;
                    break;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (unfreed > 0) {
                closeWhenFreed = true;
                return unfreed;
            }
        }
        closeMemory.run();
        return 0;
    }
}
