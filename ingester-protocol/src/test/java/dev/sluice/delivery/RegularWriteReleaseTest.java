package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.ClientStats;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.metrics.MicrometerMetricsSink;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A caller that sees its answer sees its write's resources given back; no future left pending. */
class RegularWriteReleaseTest {
    static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    static Table rows(int n, long base) {
        Table t = Table.from(CPU);
        for (int i = 0; i < n; i++) {
            t.addRow("h" + (i % 7), (double) i, base + i);
        }
        return t;
    }

    static GreptimeOptions.Builder opts(GreptimeTestServer server) {
        return GreptimeOptions.newBuilder(server.endpoint(), "public");
    }

    static void eventually(String what, java.util.function.BooleanSupplier c, long millis) throws InterruptedException {
        dev.sluice.Await.until(what, Duration.ofMillis(millis), c);
    }

    /** Writer threads that keep writing {@code rows}-row tables, each recording when it entered write() and its future. */
    static final class Writers {
        /** {entered nanoTime, future} per write, in the order the writes returned. */
        final ConcurrentLinkedQueue<Object[]> futures = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Thread> threads = new ArrayList<>();

        Writers(GreptimeDB db, int count, int rows, long perWriter, long perWrite) {
            for (int w = 0; w < count; w++) {
                long base = w * perWriter;
                Thread t = new Thread(() -> {
                    long k = 0;
                    while (!stop.get()) {
                        long entered = System.nanoTime();
                        CompletableFuture<Result<WriteOk, Err>> f = db.write(rows(rows, base + k++ * perWrite));
                        futures.add(new Object[] {entered, f});
                    }
                });
                threads.add(t);
                t.start();
            }
        }

        /** Stops the writers; returns whether every one ended within {@code millis} each. */
        boolean stop(long millis) throws InterruptedException {
            stop.set(true);
            boolean ended = true;
            for (Thread t : threads) {
                t.join(millis);
                ended &= !t.isAlive();
            }
            return ended;
        }
    }

    /** One write at a time, answer observed from a callback registered before the answer: stats must be zero. */
    @Test
    void callbackSeesReleaseOnOkErrorRetriesAndSplitWrites() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            server.faults().latency(Duration.ofMillis(20));
            // maxMessageSize small so big writes are split into parts
            GreptimeDB db = GreptimeDB.create(opts(server).maxMessageSize(64 << 10)
                    .metrics(MicrometerMetricsSink.of(registry))
                    .retryPolicy(RetryPolicy.newBuilder().backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build())
                    .build());
            try {
                List<String> bad = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    int kind = i % 5;
                    if (kind == 1) {
                        server.faults().failNext(1, StatusCode.InvalidArguments, "bad");
                    } else if (kind == 2) {
                        server.faults().failNext(2, StatusCode.RateLimited, "slow");
                    } else if (kind == 3) {
                        server.faults().failNext(25, StatusCode.RateLimited, "slow for many attempts");
                    }
                    int n = kind == 4 ? 20_000 : 10; // kind 4: split into several parts
                    final int fi = i;
                    CompletableFuture<Result<WriteOk, Err>> f = db.write(List.of(rows(n, i * 100_000L)), WriteOp.Insert,
                            Context.newBuilder().build());
                    ClientStats seen = f.thenApply(r -> db.stats()).join();
                    double g1 = registry.get("sluice.inflight.requests").gauge().value();
                    double g2 = registry.get("sluice.inflight.bytes").gauge().value();
                    if (seen.requestsInFlight() != 0 || seen.bytesInFlight() != 0) {
                        bad.add("write " + fi + " kind " + kind + ": " + seen);
                    }
                    if (g1 != 0 || g2 != 0) {
                        bad.add("write " + fi + " gauges " + g1 + " " + g2);
                    }
                    server.faults().reset();
                    server.faults().latency(Duration.ofMillis(20));
                }
                assertEquals(List.of(), bad);
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    /** Cancelling the returned future: the write's resources must be given back (no leak), the client still works. */
    @Test
    void cancelledWritesDoNotLeakBudgetOrInFlight() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            server.faults().latency(Duration.ofMillis(200));
            GreptimeDB db = GreptimeDB.create(opts(server).build());
            try {
                List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    fs.add(db.write(rows(100, i * 1000L)));
                }
                for (CompletableFuture<Result<WriteOk, Err>> f : fs) {
                    f.cancel(true);
                }
                ClientStats right = db.stats();
                // The RPCs are still out: accounting should still show them (not released early on cancel).
                assertTrue(right.requestsInFlight() > 0, "released at cancel while still on the wire: " + right);
                eventually("in flight back to 0 after cancel: " + db.stats(),
                        () -> db.stats().requestsInFlight() == 0 && db.stats().bytesInFlight() == 0, 10_000);
                assertTrue(db.write(rows(3, 999_999L)).get(10, TimeUnit.SECONDS).isOk());
            } finally {
                assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
            }
        }
    }

    /** Cancelled writes against a hung server: graceful shutdown with a short timeout still frees everything. */
    @Test
    void cancelledWritesToHungServerAreFreedByShutdown() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            server.faults().neverRespond(true);
            GreptimeDB db = GreptimeDB.create(opts(server).requestTimeout(Duration.ofSeconds(30)).build());
            List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                fs.add(db.write(rows(10, i * 100L)));
            }
            List<CompletableFuture<Result<WriteOk, Err>>> kept = new ArrayList<>();
            for (int i = 0; i < fs.size(); i++) {
                if (i % 2 == 0) {
                    fs.get(i).cancel(false);
                } else {
                    kept.add(fs.get(i));
                }
            }
            assertFalse(Await.returns("a graceful shutdown of 500 ms", () -> db.shutdownGracefully(Duration.ofMillis(500))));
            for (CompletableFuture<Result<WriteOk, Err>> f : kept) {
                assertTrue(f.isDone(), "a kept write is pending after shutdownGracefully returned");
                assertFalse(f.join().isOk());
            }
            ClientStats s = db.stats();
            assertEquals(0, s.requestsInFlight(), s.toString());
            assertEquals(0, s.bytesInFlight(), s.toString());
        }
    }

    /**
     * Repeated: writers keep writing while the client shuts down gracefully; once shutdownGracefully returned,
     * every future it accepted must already be complete (none left pending), and stats must be zero.
     */
    @Test
    void noFuturePendingAfterGracefulShutdownReturns() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            List<String> bad = new ArrayList<>();
            for (int round = 0; round < 60; round++) {
                GreptimeDB db = GreptimeDB.create(opts(server).build());
                Writers writers = new Writers(db, 3, 5, 10_000_000L, 10);
                ConcurrentLinkedQueue<Object[]> fs = writers.futures;
                Kit.await("every writer has written", Duration.ofSeconds(30), () -> fs.size() >= 3);
                long shutdownStart = System.nanoTime();
                // Bounded by the hang guard, not by a time a busy machine can pass: it returns once all is done.
                boolean clean = db.shutdownGracefully(Await.HANG_GUARD);
                int pendingBefore = 0;
                int pendingDuring = 0;
                String example = null;
                for (Object[] e : fs) {
                    CompletableFuture<?> f = (CompletableFuture<?>) e[1];
                    if (!f.isDone()) {
                        if ((long) e[0] < shutdownStart) {
                            pendingBefore++;
                        } else {
                            pendingDuring++;
                        }
                    }
                }
                writers.stop(10_000);
                for (Object[] e : fs) {
                    CompletableFuture<?> f = (CompletableFuture<?>) e[1];
                    Object r = f.get(30, TimeUnit.SECONDS);
                    if (example == null && (long) e[0] >= shutdownStart && !((Result<?, ?>) r).isOk()) {
                        example = String.valueOf(((Result<?, ?>) r).getErr());
                    }
                }
                ClientStats s = db.stats();
                if (pendingBefore > 0 || pendingDuring > 0 || !clean || s.requestsInFlight() != 0 || s.bytesInFlight() != 0) {
                    bad.add("round " + round + ": pending at return: entered before shutdown " + pendingBefore
                            + ", entered during shutdown " + pendingDuring + "; clean " + clean + "; " + s
                            + "; e.g. " + example);
                }
            }
            assertEquals(List.of(), bad);
        }
    }

    /** shutdownNow while writers write, with latency and retryable faults: every future completes, nothing held. */
    @Test
    void shutdownNowDuringWritesWithRetriesLeavesNothingPending() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            for (int round = 0; round < 10; round++) {
                server.faults().reset();
                server.faults().latency(Duration.ofMillis(round % 2 == 0 ? 0 : 30));
                server.faults().failEvery(3, StatusCode.RateLimited, "slow");
                GreptimeDB db = GreptimeDB.create(opts(server).maxInFlightBytes(1 << 20)
                        .retryPolicy(RetryPolicy.newBuilder().backoff(Duration.ofMillis(50), Duration.ofMillis(200)).build())
                        .build());
                Writers writers = new Writers(db, 3, 200, 100_000_000L, 1000);
                int written = 3 * (1 + round); // shutdownNow lands later each round
                Kit.await(written + " writes made", Duration.ofSeconds(30), () -> writers.futures.size() >= written);
                db.shutdownNow();
                assertTrue(writers.stop(10_000), "a writer thread is stuck in write() after shutdownNow");
                for (Object[] e : writers.futures) {
                    ((CompletableFuture<?>) e[1]).get(10, TimeUnit.SECONDS);
                }
                ClientStats s = db.stats();
                assertEquals(0, s.requestsInFlight(), "round " + round + " " + s);
                assertEquals(0, s.bytesInFlight(), "round " + round + " " + s);
            }
        }
    }

    /**
     * Writers blocked on a full byte budget (WhenFull.Block) while the client shuts down gracefully: every write()
     * that returned a future must see it completed within a few seconds (never left pending for good), and
     * futures of writes entered before shutdownGracefully began must be done when it returns.
     */
    @Test
    void blockedOnBudgetDuringGracefulShutdownNothingLeftPending() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            server.faults().latency(Duration.ofMillis(5));
            List<String> bad = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                GreptimeDB db = GreptimeDB.create(opts(server).maxInFlightBytes(1 << 20)
                        .whenFull(dev.sluice.write.WhenFull.Block).maxBlock(Duration.ofSeconds(30)).build());
                // ~300 KB per write: about three fit in the 1 MiB budget
                Writers writers = new Writers(db, 4, 6_000, 1_000_000_000L, 10_000);
                ConcurrentLinkedQueue<Object[]> fs = writers.futures;
                Kit.await("a writer blocked on the full budget", Duration.ofSeconds(30),
                        () -> writers.threads.stream().anyMatch(t -> Kit.waitingIn(t, "write")));
                long shutdownStart = System.nanoTime();
                boolean clean = db.shutdownGracefully(Duration.ofSeconds(10));
                int pendingEnteredBefore = 0;
                for (Object[] e : fs) {
                    if ((long) e[0] < shutdownStart && !((CompletableFuture<?>) e[1]).isDone()) {
                        pendingEnteredBefore++;
                    }
                }
                writers.stop(15_000);
                int forever = 0;
                for (Object[] e : fs) {
                    try {
                        ((CompletableFuture<?>) e[1]).get(30, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.TimeoutException x) {
                        forever++;
                    }
                }
                ClientStats s = db.stats();
                if (pendingEnteredBefore > 0 || forever > 0 || s.requestsInFlight() != 0 || s.bytesInFlight() != 0) {
                    bad.add("round " + round + ": clean " + clean + ", pending at return (entered before shutdown) "
                            + pendingEnteredBefore + ", pending 5 s later " + forever + ", " + s);
                }
            }
            assertEquals(List.of(), bad);
        }
    }
}
