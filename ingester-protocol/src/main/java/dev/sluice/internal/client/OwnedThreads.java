package dev.sluice.internal.client;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Every thread one client starts (its timer, its callback pool, its gRPC event loops), so that its shutdown can
 * wait until each has ended. A client loaded by a class loader that is closed after use (a Flink job's) must leave
 * no thread behind that could load a class from it later.
 */
public final class OwnedThreads {
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    /** The callback pool made here, or null when the caller gave the client an executor. */
    private ThreadPoolExecutor pool;
    /** What runs once the callback pool has ended; guarded by this. */
    private final java.util.List<Runnable> afterPool = new java.util.ArrayList<>();
    private boolean poolEnded;

    /**
     * A factory of daemon threads named {@code prefix} plus a number, each recorded here.
     *
     * @param prefix the threads' name, e.g. {@code sluice-timer-}
     * @return the factory
     */
    public ThreadFactory factory(String prefix) {
        return factory(prefix, Thread::new);
    }

    /**
     * A factory of daemon threads named {@code prefix} plus a number, each made by {@code newThread} and recorded
     * here.
     *
     * @param prefix the threads' name, e.g. {@code sluice-grpc-io-}
     * @param newThread makes a thread of the kind the threads' work needs from its task and name
     * @return the factory
     */
    public ThreadFactory factory(String prefix, BiFunction<Runnable, String, Thread> newThread) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = newThread.apply(() -> {
                try {
                    r.run();
                } finally {
                    threads.remove(Thread.currentThread());
                }
            }, prefix + n.incrementAndGet());
            t.setDaemon(true);
            threads.add(t);
            return t;
        };
    }

    /**
     * The client's timer, on one daemon thread named {@code sluice-timer-N}: write deadlines, backoffs, reopenings,
     * health checks and flush intervals. A deadline cancelled because its write was answered leaves the timer's queue
     * at once, so the queue holds the deadlines still pending rather than one for every write of the last request
     * timeout (each holding its write's bookkeeping until then).
     *
     * @return the timer
     */
    public ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, factory("sluice-timer-"));
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /**
     * The client's own callback pool (when the caller gave none), on threads named {@code sluice-callback-N}: where
     * gRPC runs calls' callbacks and completes their futures. Hand tasks to it through a {@link CallbackExecutor}.
     *
     * <p>The client shuts the pool down once its channels have terminated, and gRPC may still hand it the end of a
     * call then: a call that waited for a connection (or for its endpoint's address) is failed by the channel's
     * shutdown, and the callbacks that tell its listener run as tasks on this pool that queue further tasks on it.
     * The pool refuses those (its queue is unbounded: nothing else is refused) and {@link CallbackExecutor} runs them
     * on the thread that hands them over, so that the call's listener hears how the call ended.
     *
     * @return the pool
     */
    public synchronized ExecutorService callbackPool() {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), factory("sluice-callback-")) {
            @Override
            protected void terminated() {
                poolEnded();
            }
        };
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * Waits until the callback pool made here (already shut down) has run every task it holds and ended; true at once
     * when the caller gave the client an executor of its own.
     *
     * @param timeout the longest wait
     * @return true when the pool ended in time
     * @throws InterruptedException when interrupted
     */
    public boolean awaitCallbackPool(Duration timeout) throws InterruptedException {
        ThreadPoolExecutor p;
        synchronized (this) {
            p = pool;
        }
        return p == null || p.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Runs {@code action} once the callback pool made here has ended (on the pool's last thread), or now when it
     * has already ended or the caller gave the client an executor of its own.
     *
     * @param action what to run
     */
    public void afterCallbackPool(Runnable action) {
        synchronized (this) {
            if (pool != null && !poolEnded) {
                afterPool.add(action);
                return;
            }
        }
        action.run();
    }

    private void poolEnded() {
        java.util.List<Runnable> actions;
        synchronized (this) {
            poolEnded = true;
            actions = java.util.List.copyOf(afterPool);
            afterPool.clear();
        }
        actions.forEach(Runnable::run);
    }

    /**
     * Waits until every recorded thread but the caller's own has ended (their executors must be shut down first).
     *
     * @param timeout the longest wait
     * @return true when all ended in time
     * @throws InterruptedException when interrupted
     */
    public boolean join(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : threads.toArray(Thread[]::new)) {
            if (t == Thread.currentThread()) {
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            t.join(Math.max(1, left / 1_000_000));
            if (t.isAlive()) {
                return false;
            }
        }
        return true;
    }

    /** @return whether the calling thread is one of these (a shutdown from a callback cannot wait for itself) */
    public boolean isOwn() {
        return threads.contains(Thread.currentThread());
    }
}
