package dev.sluice.internal.send;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in the order they were given, on another executor: what a call's listener hands off
 * from the transport's thread keeps the order its events had. Tasks given while one runs are run by the same
 * hand-off, so answers that arrive together wake the other executor once. When that executor refuses (it is shut
 * down), the tasks run on the thread that gave them.
 */
final class InOrder implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(InOrder.class);

    private final Executor delegate;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    /**
     * Creates the executor.
     *
     * @param delegate where the tasks run
     */
    InOrder(Executor delegate) {
        this.delegate = delegate;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        schedule();
    }

    private void schedule() {
        if (!scheduled.compareAndSet(false, true)) {
            return; // the running hand-off takes it
        }
        try {
            delegate.execute(this::runAll);
        } catch (RejectedExecutionException shuttingDown) {
            runAll();
        }
    }

    private void runAll() {
        try {
            Runnable task;
            while ((task = tasks.poll()) != null) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.warn("a callback of a write threw; later callbacks still run", e);
                }
            }
        } finally {
            scheduled.set(false);
        }
        if (!tasks.isEmpty()) {
            schedule(); // given after the last poll, before the flag was cleared
        }
    }
}
