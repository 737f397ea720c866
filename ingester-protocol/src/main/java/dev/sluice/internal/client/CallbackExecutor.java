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
 * <p>Refusals after the client's shutdown are expected (the client's own pool is shut down then, and the caller may
 * shut its executor down as soon as the client's shutdown has returned, while gRPC still ends calls) and stay quiet.
 * A refusal before it means the caller's executor stopped or filled up while writes were in flight: the first one is
 * reported at WARN.
 */
public final class CallbackExecutor implements Executor {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CallbackExecutor.class);

    private final Executor delegate;
    private final AtomicBoolean quiet = new AtomicBoolean();

    /**
     * Wraps the executor callbacks go to.
     *
     * @param delegate the client's own callback pool or the caller's executor
     */
    public CallbackExecutor(Executor delegate) {
        this.delegate = delegate;
    }

    /** From now on refusals are expected: the client has shut down. */
    void clientShutDown() {
        quiet.set(true);
    }

    @Override
    public void execute(Runnable task) {
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
