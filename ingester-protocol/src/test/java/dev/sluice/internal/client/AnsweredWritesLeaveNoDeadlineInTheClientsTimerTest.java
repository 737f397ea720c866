package dev.sluice.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every write and batch schedules its deadline on the client's timer and cancels it when answered. A cancelled
 * deadline must leave the timer's queue at once: kept until it would have fired (the request timeout, a minute by
 * default), a client answering thousands of batches a second would hold hundreds of thousands of them, each with its
 * write's bookkeeping, and every new deadline would be sorted among them.
 */
class AnsweredWritesLeaveNoDeadlineInTheClientsTimerTest {
    @Test
    void aCancelledDeadlineLeavesTheTimersQueueAtOnce() {
        ScheduledThreadPoolExecutor timer = new OwnedThreads().timer();
        try {
            List<ScheduledFuture<?>> deadlines = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                deadlines.add(timer.schedule(() -> {
                }, 60, TimeUnit.SECONDS));
            }
            ScheduledFuture<?> pending = timer.schedule(() -> {
            }, 60, TimeUnit.SECONDS);
            for (ScheduledFuture<?> d : deadlines) {
                d.cancel(false);
            }
            assertEquals(1, timer.getQueue().size(), "only the deadline not cancelled is left");
            pending.cancel(false);
            assertEquals(0, timer.getQueue().size());
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void theTimersThreadIsTheClientsNamedDaemon() throws Exception {
        ScheduledThreadPoolExecutor timer = new OwnedThreads().timer();
        try {
            Thread t = timer.schedule(Thread::currentThread, 0, TimeUnit.SECONDS).get(30, TimeUnit.SECONDS);
            assertEquals(true, t.getName().startsWith("sluice-timer-"), t.getName());
            assertEquals(true, t.isDaemon(), "a daemon thread");
        } finally {
            timer.shutdownNow();
        }
    }
}
