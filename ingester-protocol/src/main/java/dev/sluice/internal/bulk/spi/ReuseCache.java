package dev.sluice.internal.bulk.spi;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Released off-heap buffers kept for reuse by capacity, so that the next batch or message of the same size gets
 * memory whose pages are already mapped instead of fresh pages the kernel faults in and clears one by one.
 *
 * <p>Bounded three ways: at most {@code budget} bytes are kept (when a buffer does not fit, the longest-kept ones
 * are freed to make room); a buffer kept unused for the idle time is freed (by the sweeper, when one is given, or
 * by {@link #expire()}); and {@link #trim()} frees everything and keeps nothing from then on. A buffer larger than
 * the whole budget is never kept. The cache never holds more than callers held just before, so it does not raise
 * the process's peak; it only delays giving memory back. Thread-safe.
 *
 * @param <T> the buffer handle (an address, a {@code ByteBuffer})
 */
public final class ReuseCache<T> {
    private final long budget;
    private final long idleNanos;
    private final LongSupplier nanoTime;
    private final ScheduledExecutorService sweeper;
    private final Consumer<T> free;
    /** Kept buffers per capacity, the most recently kept last. */
    private final Map<Long, ArrayDeque<Kept<T>>> byCapacity = new HashMap<>();
    /** Every kept buffer, the longest kept first (the same entries as {@code byCapacity} holds). */
    private final ArrayDeque<Kept<T>> byAge = new ArrayDeque<>();
    private long cached;
    private boolean trimmed;
    private boolean sweepPending;

    /**
     * A kept buffer. Compared by identity on purpose: the queues remove entries with {@code equals}, and a record's
     * own would compare a {@code ByteBuffer}'s contents.
     */
    private record Kept<T>(T buffer, long capacity, long keptAt) {
        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }

    /**
     * Creates a cache.
     *
     * @param budget the most bytes kept (0 keeps nothing)
     * @param idleNanos how long a buffer may stay unused before it is freed
     * @param nanoTime the clock; null for {@code System.nanoTime()}
     * @param sweeper runs {@link #expire()} when the oldest buffer's idle time is up; null leaves that to callers
     * @param free returns a buffer to the system
     */
    public ReuseCache(long budget, long idleNanos, LongSupplier nanoTime, ScheduledExecutorService sweeper,
                      Consumer<T> free) {
        this.budget = Math.max(0, budget);
        this.idleNanos = Math.max(0, idleNanos);
        this.nanoTime = nanoTime != null ? nanoTime : System::nanoTime;
        this.sweeper = sweeper;
        this.free = free;
    }

    /**
     * Returns the process-wide daemon thread that expires idle buffers (started on first use).
     *
     * @return the sweeper
     */
    public static ScheduledExecutorService sharedSweeper() {
        return SweeperHolder.SWEEPER;
    }

    /** Starts the sweeper thread on first use only. */
    private static final class SweeperHolder {
        static final ScheduledExecutorService SWEEPER = start();

        private static ScheduledExecutorService start() {
            ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, task -> {
                Thread t = new Thread(task, "sluice-memory-sweeper");
                t.setDaemon(true);
                return t;
            });
            e.setRemoveOnCancelPolicy(true);
            return e;
        }
    }

    /**
     * Takes a kept buffer of exactly this capacity, the most recently kept one.
     *
     * @param capacity bytes
     * @return the buffer, or null when none is kept
     */
    public T take(long capacity) {
        synchronized (this) {
            ArrayDeque<Kept<T>> same = byCapacity.get(capacity);
            if (same == null) {
                return null;
            }
            Kept<T> k = same.pollLast();
            if (same.isEmpty()) {
                byCapacity.remove(capacity);
            }
            byAge.removeLastOccurrence(k);
            cached -= capacity;
            return k.buffer();
        }
    }

    /**
     * Keeps a released buffer for reuse, freeing the longest-kept ones if it would not fit otherwise; frees it
     * instead when the cache is trimmed or the buffer exceeds the whole budget.
     *
     * @param buffer the released buffer
     * @param capacity its capacity in bytes
     */
    public void keep(T buffer, long capacity) {
        List<T> evicted = new ArrayList<>();
        boolean kept = false;
        synchronized (this) {
            if (!trimmed && capacity <= budget) {
                while (cached + capacity > budget) {
                    evicted.add(forgetOldest());
                }
                Kept<T> k = new Kept<>(buffer, capacity, nanoTime.getAsLong());
                byCapacity.computeIfAbsent(capacity, c -> new ArrayDeque<>()).addLast(k);
                byAge.addLast(k);
                cached += capacity;
                kept = true;
                sweepLater(idleNanos);
            }
        }
        evicted.forEach(free);
        if (!kept) {
            free.accept(buffer);
        }
    }

    /** Takes the longest-kept buffer out; caller holds the lock and frees it. */
    private T forgetOldest() {
        Kept<T> oldest = byAge.pollFirst();
        ArrayDeque<Kept<T>> same = byCapacity.get(oldest.capacity());
        same.removeFirstOccurrence(oldest);
        if (same.isEmpty()) {
            byCapacity.remove(oldest.capacity());
        }
        cached -= oldest.capacity();
        return oldest.buffer();
    }

    /** Schedules an expiry run unless one is pending; caller holds the lock. */
    private void sweepLater(long delayNanos) {
        if (sweeper == null || sweepPending) {
            return;
        }
        try {
            sweeper.schedule(this::expire, delayNanos, TimeUnit.NANOSECONDS);
            sweepPending = true;
        } catch (RejectedExecutionException e) {
            // The sweeper (a client's timer) is shut down: the client's shutdown empties the cache itself.
        }
    }

    /** Frees every buffer that has been kept unused for the idle time or longer. */
    public void expire() {
        List<T> expired = new ArrayList<>();
        synchronized (this) {
            sweepPending = false;
            long now = nanoTime.getAsLong();
            while (!byAge.isEmpty() && now - byAge.peekFirst().keptAt() >= idleNanos) {
                expired.add(forgetOldest());
            }
            if (!byAge.isEmpty() && !trimmed) {
                sweepLater(byAge.peekFirst().keptAt() + idleNanos - now);
            }
        }
        expired.forEach(free);
    }

    /**
     * Returns the bytes kept.
     *
     * @return kept bytes
     */
    public synchronized long cachedBytes() {
        return cached;
    }

    /** Frees every kept buffer, and keeps none from now on. */
    public void trim() {
        List<Kept<T>> all;
        synchronized (this) {
            trimmed = true;
            all = new ArrayList<>(byAge);
            byAge.clear();
            byCapacity.clear();
            cached = 0;
        }
        for (Kept<T> k : all) {
            free.accept(k.buffer());
        }
    }
}
