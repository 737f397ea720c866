package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Producers racing {@code close()}: a write either is refused at once or its future completes; close leaves
 * nothing pending, and the client's shutdown leaves no thread of its own behind.
 */
class BatchingWriterCloseRaceTest {
    static final TableSchema RACE = TableSchema.newBuilder("race").addTag("p", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    static final int ROUNDS = 1_000;
    static final int PRODUCERS = 8;
    static final int ROWS_PER_PRODUCER = 200;
    /** Rounds run at once, each with its own writer and producers. */
    static final int LANES = 4;

    static Set<Thread> sluiceThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("sluice-")).collect(Collectors.toSet());
    }

    /**
     * One round: a fresh writer, eight producers released at once, close() after 0 to 2 ms; waits for every
     * future the writer accepted.
     *
     * @return {accepted, acked, failed}
     */
    static long[] round(GreptimeDB db, BatchingWriter.Config cfg, ExecutorService producers, int round)
            throws Exception {
        BatchingWriter w = db.batchingWriter(cfg);
        ConcurrentLinkedQueue<CompletableFuture<Void>> futures = new ConcurrentLinkedQueue<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> running = new ArrayList<>();
        long base = (long) round * 1_000_000;
        for (int p = 0; p < PRODUCERS; p++) {
            String name = "p" + p;
            long first = base + p * 100_000L;
            running.add(producers.submit(() -> {
                go.await();
                for (long i = first; i < first + ROWS_PER_PRODUCER; i++) {
                    try {
                        futures.add(w.write(RACE, name, i, i));
                    } catch (IllegalStateException closed) {
                        return null; // refused at once: not accepted
                    }
                }
                return null;
            }));
        }
        go.countDown();
        Thread.sleep(ThreadLocalRandom.current().nextInt(3)); // scenario timing: close lands at varied points, not a wait
        w.close();
        for (Future<?> f : running) {
            f.get(30, TimeUnit.SECONDS);
        }
        long acked = 0;
        long failed = 0;
        for (CompletableFuture<Void> f : futures) {
            try {
                f.get(30, TimeUnit.SECONDS); // a future left pending fails here with a TimeoutException
                acked++;
            } catch (java.util.concurrent.ExecutionException e) {
                failed++;
            }
        }
        assertEquals(0, w.pendingRows(), "round " + round + ": nothing pending after close");
        return new long[] {futures.size(), acked, failed};
    }

    /**
     * The thousand rounds run in {@link #LANES} lanes at once, each lane one round after another with its own eight
     * producers, all on one client: a round waits mostly for the server's answers to its last batches, which the
     * lanes overlap. Each round is the same race of its own writer's producers against its close().
     */
    @Test
    void everyFutureCompletesWhenEightProducersRaceCloseForAThousandRounds() throws Exception {
        Set<Thread> before = sluiceThreads();
        ExecutorService lanes = Executors.newFixedThreadPool(LANES);
        List<ExecutorService> producerPools = new ArrayList<>();
        java.util.concurrent.atomic.AtomicLong accepted = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong acked = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();
        // Rows are unique, so counting (without keeping them) is exact and keeps the heap small.
        try (GreptimeTestServer server = GreptimeTestServer.builder().retainRows(false).start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().maxBatchRows(37)
                    .flushInterval(Duration.ofMillis(1)).build();
            List<Future<?>> running = new ArrayList<>();
            for (int lane = 0; lane < LANES; lane++) {
                ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
                producerPools.add(producers);
                int first = lane;
                running.add(lanes.submit(() -> {
                    for (int round = first; round < ROUNDS; round += LANES) {
                        long[] r = round(db, cfg, producers, round);
                        accepted.addAndGet(r[0]);
                        acked.addAndGet(r[1]);
                        failed.addAndGet(r[2]);
                    }
                    return null;
                }));
            }
            for (Future<?> lane : running) {
                try {
                    lane.get(10, TimeUnit.MINUTES);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof AssertionError a) {
                        throw a;
                    }
                    throw e;
                }
            }
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(30)));
            long stored = server.rowCount("race");
            System.out.printf("[close-race] rounds=%d accepted=%d acked=%d failed=%d stored=%d%n", ROUNDS,
                    accepted.get(), acked.get(), failed.get(), stored);
            assertEquals(accepted.get(), acked.get() + failed.get(), "every accepted write completed");
            assertEquals(acked.get(), stored, "stored == acknowledged");
        } finally {
            lanes.shutdownNow();
            producerPools.forEach(ExecutorService::shutdownNow);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Set<Thread> left = sluiceThreads();
        left.removeAll(before);
        left.removeIf(t -> t.getName().equals("sluice-memory-sweeper")); // process-wide, shared by every client
        for (Thread t : left) { // each join returns as soon as its thread has ended, or at the deadline
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        left.removeIf(t -> !t.isAlive());
        assertTrue(left.isEmpty(), "threads left after shutdown: " + left);
    }

    @Test
    void shutdownGracefullyClosesAnOpenBatchingWriterAndFlushesIt() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().flushInterval(Duration.ofHours(1)).build());
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            for (long i = 0; i < 500; i++) {
                futures.add(w.write(RACE, "p", i, i));
            }
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(30)));
            for (CompletableFuture<Void> f : futures) {
                assertTrue(f.isDone(), "the writer was flushed by the client's shutdown");
                f.join();
            }
            assertEquals(500, server.rowCount("race"));
            assertEquals(0, w.pendingRows());
            try {
                w.write(RACE, "p", 1L, 1L);
                throw new AssertionError("a closed writer must refuse writes");
            } catch (IllegalStateException expected) {
                // refused
            } catch (CompletionException unexpected) {
                throw new AssertionError(unexpected);
            }
        }
    }
}
