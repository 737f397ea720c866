package dev.sluice.internal.send;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A clock and a timer that move only when a test says so: {@link #advance} runs, on the test's thread, every task
 * that falls due, in order. Tests of deadlines and backoff then need no sleeps and no margins. Send engines take it
 * directly; a client takes it through {@code dev.sluice.ManualTimeClients} (this module's test jar).
 */
public final class ManualTime extends AbstractExecutorService implements ScheduledExecutorService, LongSupplier {
    private long now = 1_000_000_000L;
    private long seq;
    private final PriorityQueue<Task<?>> tasks = new PriorityQueue<>();

    @Override
    public synchronized long getAsLong() {
        return now;
    }

    /**
     * Moves the clock forward, running every task due by the new time (and tasks those schedule, when due).
     *
     * @param d how far
     */
    public void advance(Duration d) {
        long target;
        synchronized (this) {
            target = now + d.toNanos();
        }
        while (true) {
            Task<?> t;
            synchronized (this) {
                t = tasks.peek();
                if (t == null || t.due > target) {
                    now = target;
                    return;
                }
                tasks.poll();
                now = Math.max(now, t.due);
            }
            if (!t.isCancelled()) {
                t.run();
            }
        }
    }

    /**
     * Moves the clock in steps until {@code done} completes, each step only once a task waits for its time: the
     * clock then stands still while the code under test works on the real one (a stream opens, a batch is on its
     * way), and moves while it waits on this timer (a deadline, a timeout, a backoff).
     *
     * @param done what the timers lead to
     * @param step how far each step moves the clock
     */
    public void advanceUntil(java.util.concurrent.Future<?> done, Duration step) {
        while (!done.isDone()) {
            dev.sluice.Await.until("a timer of the manual clock, or the end", dev.sluice.Await.HANG_GUARD,
                    () -> scheduled() > 0 || done.isDone());
            advance(step);
        }
    }

    /** Runs the tasks due now, without moving the clock. */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /**
     * Counts the tasks waiting for their time.
     *
     * @return tasks scheduled and not cancelled
     */
    public synchronized int scheduled() {
        return (int) tasks.stream().filter(t -> !t.isCancelled()).count();
    }

    private final class Task<V> extends java.util.concurrent.FutureTask<V> implements ScheduledFuture<V> {
        final long due;
        final long order;

        Task(Callable<V> c, long due) {
            super(c);
            this.due = due;
            this.order = seq++;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(due - getAsLong(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            Task<?> t = (Task<?>) o;
            return due != t.due ? Long.compare(due, t.due) : Long.compare(order, t.order);
        }
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Task<Object> t = new Task<>(java.util.concurrent.Executors.callable(command), now + unit.toNanos(Math.max(0, delay)));
        tasks.add(t);
        return t;
    }

    @Override
    public synchronized <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Task<V> t = new Task<>(callable, now + unit.toNanos(Math.max(0, delay)));
        tasks.add(t);
        return t;
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the send engine");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the send engine");
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public void shutdown() {
    }

    @Override
    public List<Runnable> shutdownNow() {
        return new ArrayList<>();
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isTerminated() {
        return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }
}
