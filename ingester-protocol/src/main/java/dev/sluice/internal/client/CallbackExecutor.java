package dev.sluice.internal.client;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where a client hands the callbacks of its calls (gRPC's call listeners, which complete write futures): the
 * client's own pool or the caller's executor, with one guarantee added: a task the executor refuses runs on the
 * thread that hands it over. A refused callback would otherwise leave its call's listener unanswered (a write,
 * stream message or bulk batch whose future never completes, holding its share of the byte budget) and be reported
 * as an uncaught exception on gRPC's threads.
 *
 * <p>Refusals after the client's shutdown are expected (the client's own pool is shut down then, and the caller may
 * shut its executor down as soon as the client's shutdown has returned, while gRPC still ends calls) and stay quiet.
 * A refusal before it means the caller's executor stopped or filled up while writes were in flight: the first one is
 * reported at WARN.
 *
 * <p>A caller's executor is not the client's to shut down, so the client cannot wait for it to end the way it waits
 * for its own pool. Wrapped with {@link #counting}, the tasks handed to it are counted until they have run, and the
 * client's shutdown waits for that count to reach zero ({@link #awaitHandedTasks}) before its event loops end: a
 * call's end cancels the call's deadline timer on those loops first (see {@code ClientLifecycle}).
 */
public final class CallbackExecutor implements Executor {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CallbackExecutor.class);

    private final Executor delegate;
    private final AtomicBoolean quiet = new AtomicBoolean();
    /** Tasks handed over and not yet run, when counting (a caller's executor); null otherwise. */
    private final AtomicInteger handed;
    /** How many counted tasks the current thread is inside (a shutdown run from a callback cannot wait for itself). */
    private final ThreadLocal<int[]> inside;

    /**
     * Wraps the client's own callback pool, which the client shuts down and waits for itself.
     *
     * @param delegate the client's own callback pool
     */
    public CallbackExecutor(Executor delegate) {
        this.delegate = delegate;
        this.handed = null;
        this.inside = null;
    }

    private CallbackExecutor(Executor delegate, boolean counting) {
        this.delegate = delegate;
        this.handed = new AtomicInteger();
        this.inside = ThreadLocal.withInitial(() -> new int[1]);
    }

    /**
     * Wraps a caller's executor, counting the tasks handed to it until they have run.
     *
     * @param delegate the caller's executor
     * @return the wrapper
     */
    public static CallbackExecutor counting(Executor delegate) {
        return new CallbackExecutor(delegate, true);
    }

    /**
     * Waits until every task handed over (but those the calling thread is running) has run; true at once when not
     * counting.
     *
     * @param timeout the longest wait
     * @return true when none is left
     * @throws InterruptedException when interrupted
     */
    boolean awaitHandedTasks(java.time.Duration timeout) throws InterruptedException {
        if (handed == null) {
            return true;
        }
        int own = inside.get()[0];
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (handed.get() > own) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
        return true;
    }

    private void ran() {
        if (handed.decrementAndGet() == 0) {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    /** From now on refusals are expected: the client has shut down. */
    void clientShutDown() {
        quiet.set(true);
    }

    @Override
    public void execute(Runnable task) {
        if (handed == null) {
            handOver(task);
            return;
        }
        handed.incrementAndGet();
        AtomicBoolean once = new AtomicBoolean();
        Runnable counted = () -> {
            int[] depth = inside.get();
            depth[0]++;
            try {
                task.run();
            } finally {
                depth[0]--;
                if (once.compareAndSet(false, true)) {
                    ran();
                }
            }
        };
        try {
            handOver(counted);
        } catch (RuntimeException | Error e) {
            if (once.compareAndSet(false, true)) {
                ran();
            }
            throw e;
        }
    }

    private void handOver(Runnable task) {
        try {
            delegate.execute(task);
        } catch (RejectedExecutionException refused) {
            if (quiet.compareAndSet(false, true)) {
                LOG.warn("the callbackExecutor given in GreptimeOptions refused a task ({}); the client runs each"
                        + " refused callback on the thread handing it over (possibly a gRPC I/O thread). Keep that"
                        + " executor accepting work until the client's shutdown has returned, and do not bound its"
                        + " queue", refused.toString());
            }
            task.run();
        }
    }
}
