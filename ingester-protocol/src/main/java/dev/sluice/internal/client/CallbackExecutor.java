package dev.sluice.internal.client;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where a client hands the callbacks of its calls (gRPC's call listeners, which complete write futures): the
 * client's own pool or the caller's executor, with one guarantee added: a task the executor refuses runs on the
 * thread that hands it over. A refused callback would otherwise leave its call's listener unanswered (a write,
 * stream message or bulk batch whose future never completes, holding its share of the byte budget) and be reported
 * as an uncaught exception on gRPC's threads.
 *
 * <p>The client's own pool refuses tasks only once the client has shut it down, which is expected and stays quiet. A
 * caller's executor that refuses (it was shut down while writes were in flight, or its queue is bounded and full) is
 * reported once at WARN.
 */
public final class CallbackExecutor implements Executor {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CallbackExecutor.class);

    private final Executor delegate;
    private final boolean callers;
    private final AtomicBoolean warned = new AtomicBoolean();

    private CallbackExecutor(Executor delegate, boolean callers) {
        this.delegate = delegate;
        this.callers = callers;
    }

    /**
     * Wraps the client's own callback pool: refusals (after its shutdown) run on the handing thread, silently.
     *
     * @param pool the pool
     * @return the executor to hand callbacks to
     */
    public static CallbackExecutor ofOwnPool(Executor pool) {
        return new CallbackExecutor(pool, false);
    }

    /**
     * Wraps the executor the caller gave the client: refusals run on the handing thread, the first one logged at WARN.
     *
     * @param given the caller's executor
     * @return the executor to hand callbacks to
     */
    public static CallbackExecutor ofCallers(Executor given) {
        return new CallbackExecutor(given, true);
    }

    @Override
    public void execute(Runnable task) {
        try {
            delegate.execute(task);
        } catch (RejectedExecutionException refused) {
            if (callers && warned.compareAndSet(false, true)) {
                LOG.warn("the callbackExecutor given in GreptimeOptions refused a task ({}); the client runs each"
                        + " refused callback on the thread handing it over (possibly a gRPC I/O thread). Keep that executor accepting work until the"
                        + " client has shut down (shut the client down first), and do not bound its queue",
                        refused.toString());
            }
            task.run();
        }
    }
}
