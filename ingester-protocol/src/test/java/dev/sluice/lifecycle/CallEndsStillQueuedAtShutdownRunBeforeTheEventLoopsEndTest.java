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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The client's event loops outlive its callback pool. A call's end that gRPC hands to the pool first cancels the
 * call's deadline timer, which lives on the event loops; when they are already ending, the cancel is refused, gRPC
 * logs the refusal as SEVERE and the call's listener never hears how the call ended. So a shutdown that finds the
 * pool busy (here with a caller's own slow callback) lets the pool run everything it holds before the event loops
 * end, and everything ends by the time the shutdown returns.
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
        UnexpectedLogRecords unexpected = new UnexpectedLogRecords();
        Logger root = Logger.getLogger("");
        root.addHandler(unexpected);
        try (GreptimeTestServer server = GreptimeTestServer.start();
             StandardErrorCapture log = new StandardErrorCapture()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Duration.ofSeconds(30)).build());
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch inCallback = new CountDownLatch(1);
            AtomicBoolean onPool = new AtomicBoolean();
            var write = db.write(Table.from(CPU).addRow("h", 0.5, 1_700_000_000_000L)).whenComplete((r, e) -> {
                onPool.set(Thread.currentThread().getName().startsWith("sluice-callback-"));
                inCallback.countDown();
                try {
                    release.await(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(inCallback.await(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS), "the write was answered");
            assertTrue(onPool.get(), "the answer's callback ran on the client's callback pool");
            assertTrue(eventLoopsRunning(), "the client's event loops run while it is open");

            Thread shutdown = new Thread(db::shutdownNow, "test-shutdown");
            shutdown.start();
            // The shutdown has done all it can while a callback still runs on the pool: it waits for the pool now.
            Await.until("the shutdown waits for the client's callback pool", Await.HANG_GUARD,
                    () -> Arrays.stream(shutdown.getStackTrace()).anyMatch(f -> f.getMethodName().equals("join")
                            || f.getMethodName().equals("awaitTermination") && f.getClassName().endsWith("ThreadPoolExecutor")));
            boolean eventLoopsWhileThePoolRuns = eventLoopsRunning();
            release.countDown();
            shutdown.join(Await.HANG_GUARD.toMillis());
            assertTrue(!shutdown.isAlive(), "shutdownNow returned");
            write.get(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);

            assertTrue(eventLoopsWhileThePoolRuns, "the event loops ended while the callback pool still ran a callback");
            assertTrue(!eventLoopsRunning(), "the event loops ended by the time the shutdown returned");
            assertEquals(List.of(), List.copyOf(unexpected.seen), "logged through java.util.logging");
            assertEquals(0, log.linesContaining("RejectedExecution"), log.text());
        } finally {
            root.removeHandler(unexpected);
        }
    }
}
