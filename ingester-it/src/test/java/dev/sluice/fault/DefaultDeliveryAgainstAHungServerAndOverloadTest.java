package dev.sluice.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.write.Context;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.write.WriteOk;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.testkit.GreptimeTestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With the client's default settings, a server that never answers fails every path at the 2-minute default
 * delivery deadline (the scenario starts before the test, in the background, and the test waits for it), while a
 * tenfold overload on another server stays within the memory budget and loses nothing.
 */
class DefaultDeliveryAgainstAHungServerAndOverloadTest extends DefaultDeliveryKit {
    /** The hung-server scenario, started before the test: completes when its assertions passed. */
    static final CompletableFuture<Void> HUNG = new CompletableFuture<>();

    /** Counted down once the hung-server scenario's writes are handed over (or it failed before that). */
    static final java.util.concurrent.CountDownLatch HANGING = new java.util.concurrent.CountDownLatch(1);

    @BeforeAll
    static void startTheHungServerScenario() {
        Thread scenario = new Thread(() -> {
            try {
                hungServerOnEveryPath(HANGING);
                HUNG.complete(null);
            } catch (Throwable e) {
                HUNG.completeExceptionally(e);
            } finally {
                HANGING.countDown();
            }
        }, "hung-server-scenario");
        scenario.setDaemon(true);
        scenario.start();
    }

    /**
     * A hung server: it accepts every write (regular requests, stream messages and bulk batches) and never answers
     * or stores any. Every path writes at once against it, so the suite waits one delivery deadline in all. Each
     * future must fail, not before the 2-minute delivery deadline (a hang shorter than that must not lose writes)
     * and not long after it (nothing is left pending). Rows written before the hang (the bulk writers' first
     * batches, opened while the server answered) are acknowledged and stored.
     */
    static void hungServerOnEveryPath(java.util.concurrent.CountDownLatch hanging) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            hungClient = db;
            BulkStreamWriter bulk = null;
            BatchingWriter batchingRegular = null;
            BatchingWriter batchingBulk = null;
            try {
                assertTrue(db.createTable(METRICS, Context.newBuilder().build()).join().isOk());
                // Opened while the server answers: a hang mid-run finds the bulk streams open and in use.
                List<Tracked> before = new ArrayList<>();
                bulk = db.bulkStreamWriter(METRICS, BulkWrite.Config.newBuilder().build(), Context.newBuilder().build());
                TableBufferRoot root = bulk.tableBufferRoot(BATCH);
                root.addTable(batch(0));
                before.add(Tracked.of(Path.BULK, BATCH, System.nanoTime(), bulk.writeNext().thenApply(n -> (long) n)));
                BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().maxBatchRows(BATCH).build();
                batchingRegular = db.batchingWriter(cfg);
                batchingBulk = db.batchingWriter(cfg.toBuilder().path(BatchingWriter.Path.Bulk).build());
                before.add(Tracked.of(Path.BATCHING_BULK, BATCH, System.nanoTime(),
                        batchingBulk.write(batch(1)).thenApply(v -> (long) BATCH)));
                List<String> errors = new ArrayList<>();
                long ackedBefore = 0;
                for (Tracked t : before) {
                    Long n = t.await(60, errors);
                    assertTrue(n != null, "written before the hang: " + errors);
                    ackedBefore += n;
                }
                assertEquals(ackedBefore, server.rowCount("metrics"));

                server.faults().neverRespond(true);
                long hungAt = System.nanoTime();
                List<Tracked> tracked = java.util.Collections.synchronizedList(new ArrayList<>());
                BulkStreamWriter bulkWriter = bulk;
                BatchingWriter overRegular = batchingRegular;
                BatchingWriter overBulk = batchingBulk;
                // Fewer writes than each path's in-flight limit, so that every one is sent at once.
                List<Runnable> paths = List.of(
                    () -> {
                        for (int b = 10; b < 15; b++) {
                            long at = System.nanoTime();
                            tracked.add(Tracked.of(Path.REGULAR, BATCH, at, rowsOf(db.write(batch(b)))));
                        }
                    },
                    () -> {
                        for (int s0 = 20; s0 < 26; s0 += 3) {
                            long at = System.nanoTime();
                            StreamWriter<Table, WriteOk> st = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
                            for (int b = s0; b < s0 + 3; b++) {
                                st.write(batch(b));
                            }
                            tracked.add(Tracked.of(Path.STREAM, 3L * BATCH, at,
                                    st.completed().thenApply(ok -> (long) ok.affectedRows())));
                        }
                    },
                    () -> {
                        for (int b = 30; b < 35; b++) {
                            root.addTable(batch(b));
                            long at = System.nanoTime();
                            tracked.add(Tracked.of(Path.BULK, BATCH, at, bulkWriter.writeNext().thenApply(n -> (long) n)));
                        }
                    },
                    () -> {
                        for (int b = 40; b < 43; b++) {
                            long at = System.nanoTime();
                            tracked.add(Tracked.of(Path.BATCHING_REGULAR, BATCH, at,
                                    overRegular.write(batch(b)).thenApply(v -> (long) BATCH)));
                        }
                    },
                    () -> {
                        for (int b = 50; b < 53; b++) {
                            long at = System.nanoTime();
                            tracked.add(Tracked.of(Path.BATCHING_BULK, BATCH, at,
                                    overBulk.write(batch(b)).thenApply(v -> (long) BATCH)));
                        }
                    });
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(paths.size());
                try {
                    List<CompletableFuture<Void>> writers = new ArrayList<>();
                    for (Runnable r : paths) {
                        writers.add(CompletableFuture.runAsync(r, pool));
                    }
                    CompletableFuture.allOf(writers.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
                } finally {
                    pool.shutdownNow();
                    hanging.countDown();
                }

                long deadlineNanos = DELIVERY_DEADLINE.toNanos();
                // Generous: a loaded machine completes futures late, never early.
                long marginNanos = TimeUnit.SECONDS.toNanos(45);
                long waitSeconds = TimeUnit.NANOSECONDS.toSeconds(deadlineNanos + marginNanos) + 30;
                java.util.Map<Path, long[]> table = new java.util.EnumMap<>(Path.class); // sent, acked, failed, min ms, max ms
                for (Tracked t : List.copyOf(tracked)) {
                    List<String> errs = new ArrayList<>();
                    Long n = t.await(waitSeconds, errs);
                    long[] row = table.computeIfAbsent(t.path(), p -> new long[] {0, 0, 0, Long.MAX_VALUE, 0});
                    row[0] += t.rows();
                    long tookMs = TimeUnit.NANOSECONDS.toMillis(t.doneNanos()[0] - t.startedNanos());
                    row[3] = Math.min(row[3], tookMs);
                    row[4] = Math.max(row[4], tookMs);
                    if (n != null) {
                        row[1] += n;
                    } else {
                        row[2] += t.rows();
                        errors.add(t.path() + ": " + errs.get(0));
                    }
                }
                long stored = server.rowCount("metrics") - ackedBefore;
                long sent = 0;
                long acked = 0;
                long failed = 0;
                for (java.util.Map.Entry<Path, long[]> e : table.entrySet()) {
                    long[] r = e.getValue();
                    sent += r[0];
                    acked += r[1];
                    failed += r[2];
                    System.out.printf("[default-delivery] server hung / %s: sent=%d acked=%d failed=%d, futures failed"
                            + " %d..%d ms after the write%n", e.getKey(), r[0], r[1], r[2], r[3], r[4]);
                }
                System.out.printf("[default-delivery] server hung / all paths: sent=%d acked=%d stored=%d failed=%d"
                        + " (plus %d rows acknowledged and stored before the hang) in %d s; first errors: %s%n", sent,
                        acked, stored, failed, ackedBefore, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - hungAt),
                        errors.subList(0, Math.min(errors.size(), 5)));
                assertEquals(5, table.size(), "every path wrote");
                assertEquals(acked, stored, "stored == acknowledged");
                assertEquals(sent, acked + failed, "acknowledged + failed == sent");
                assertEquals(0, acked, "a hung server acknowledges nothing");
                for (Tracked t : tracked) {
                    long took = t.doneNanos()[0] - t.startedNanos();
                    // Slack of 2 s: a resend whose backoff would end past the deadline is not started.
                    assertTrue(took >= deadlineNanos - TimeUnit.SECONDS.toNanos(2), t.path() + ": failed after "
                            + TimeUnit.NANOSECONDS.toMillis(took) + " ms, before its delivery deadline of "
                            + DELIVERY_DEADLINE.toMillis() + " ms");
                    assertTrue(took <= deadlineNanos + marginNanos, t.path() + ": failed after "
                            + TimeUnit.NANOSECONDS.toMillis(took) + " ms, long after its delivery deadline");
                }
            } finally {
                server.faults().reset();
                for (AutoCloseable c : new AutoCloseable[] {bulk, batchingRegular, batchingBulk}) {
                    if (c != null) {
                        c.close();
                    }
                }
                db.shutdownGracefully();
            }
        }
    }

    /**
     * The two slow scenarios at once, each with its own server and client: while the hung server (started before
     * every test, see {@link #startTheHungServerScenario()}) holds every future for the 2-minute delivery deadline
     * (timers, not work), the overload scenario runs, so that the suite waits one deadline rather than two. Runs
     * last. Both scenarios' assertions apply; a failure of either fails the test.
     */
    @Test
    void everyPathFailsAtItsDeadlineWhenTheServerHangsAndStaysWithinBudgetUnderTenfoldOverload() throws Throwable {
        assertTrue(HANGING.await(120, TimeUnit.SECONDS), "the hung-server writes were handed over");
        Throwable overload = null;
        try {
            tenfoldOverload(Path.values());
        } catch (Throwable e) {
            overload = e;
        }
        try {
            HUNG.get(DELIVERY_DEADLINE.toSeconds() + 180, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (overload != null) {
                e.getCause().addSuppressed(overload);
            }
            throw e.getCause();
        } finally {
            GreptimeDB db = hungClient;
            if (db != null) {
                CLIENTS.add(db); // its memory is checked after this test like every other client's
            }
        }
        if (overload != null) {
            throw overload;
        }
    }
}
