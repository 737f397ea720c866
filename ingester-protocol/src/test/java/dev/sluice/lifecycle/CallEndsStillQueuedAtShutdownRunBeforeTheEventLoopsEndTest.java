package dev.sluice.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.errors.StandardErrorCapture;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The client's event loops outlive its callback pool. A call's end that gRPC hands to the pool first cancels the
 * call's deadline timer, which lives on the event loops; when they are already ending, the cancel is refused, gRPC
 * logs the refusal as SEVERE and the call's listener never hears how the call ended. So a shutdown that finds the
 * pool busy (here with a caller's own slow callback) lets the pool run everything it holds before the event loops
 * end, and everything ends by the time the shutdown returns. A caller's own callback executor is not the client's to
 * shut down, so the shutdown waits for the tasks it handed to it instead.
 */
class CallEndsStillQueuedAtShutdownRunBeforeTheEventLoopsEndTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private static boolean eventLoopsRunning() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().startsWith("sluice-grpc-io-") && t.isAlive());
    }

    @Test
    void theEventLoopsKeepRunningUntilTheCallbackPoolHasRunWhatItHolds() throws Exception {
        eventLoopsOutliveTheCallbacks(null, "sluice-callback-");
    }

    @Test
    void theEventLoopsKeepRunningUntilTheCallersExecutorHasRunWhatTheClientHandedIt() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(2, r -> new Thread(r, "callers-callback"));
        try {
            eventLoopsOutliveTheCallbacks(callers, "callers-callback");
        } finally {
            callers.shutdownNow();
        }
    }

    private static void eventLoopsOutliveTheCallbacks(Executor callbackExecutor, String callbackThread) throws Exception {
        UnexpectedLogRecords unexpected = new UnexpectedLogRecords();
        Logger root = Logger.getLogger("");
        root.addHandler(unexpected);
        try (GreptimeTestServer server = GreptimeTestServer.start();
             StandardErrorCapture log = new StandardErrorCapture()) {
            GreptimeOptions.Builder options = GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Duration.ofSeconds(30));
            if (callbackExecutor != null) {
                options.callbackExecutor(callbackExecutor);
            }
            GreptimeDB db = GreptimeDB.create(options.build());
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch inCallback = new CountDownLatch(1);
            AtomicBoolean onPool = new AtomicBoolean();
            var write = db.write(Table.from(CPU).addRow("h", 0.5, 1_700_000_000_000L)).whenComplete((r, e) -> {
                onPool.set(Thread.currentThread().getName().startsWith(callbackThread));
                inCallback.countDown();
                try {
                    release.await(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(inCallback.await(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS), "the write was answered");
            assertTrue(onPool.get(), "the answer's callback ran on " + callbackThread);
            assertTrue(eventLoopsRunning(), "the client's event loops run while it is open");

            Thread shutdown = new Thread(db::shutdownNow, "test-shutdown");
            shutdown.start();
            // The shutdown has done all it can while a callback still runs: it waits for the callbacks now (or, when
            // it does not wait for them, it has returned).
            Await.until("the shutdown waits for the callbacks or has returned", Await.HANG_GUARD,
                    () -> !shutdown.isAlive() || Arrays.stream(shutdown.getStackTrace()).anyMatch(f ->
                            f.getMethodName().equals("join") || f.getMethodName().equals("awaitHandedTasks")
                            || f.getMethodName().equals("awaitTermination") && f.getClassName().endsWith("ThreadPoolExecutor")));
            boolean eventLoopsWhileThePoolRuns = eventLoopsRunning();
            release.countDown();
            shutdown.join(Await.HANG_GUARD.toMillis());
            assertTrue(!shutdown.isAlive(), "shutdownNow returned");
            write.get(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);

            assertTrue(eventLoopsWhileThePoolRuns, "the event loops ended while a callback the client handed over still ran");
            assertTrue(!eventLoopsRunning(), "the event loops ended by the time the shutdown returned");
            assertEquals(List.of(), List.copyOf(unexpected.seen), "logged through java.util.logging");
            assertEquals(0, log.linesContaining("RejectedExecution"), log.text());
        } finally {
            root.removeHandler(unexpected);
        }
    }
}
