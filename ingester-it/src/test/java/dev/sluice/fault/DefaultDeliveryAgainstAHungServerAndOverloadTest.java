package dev.sluice.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.ManualTimeClients;
import dev.sluice.internal.send.ManualTime;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
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
import org.junit.jupiter.api.Test;

/**
 * With the client's default retry policy, a server that never answers fails every path at the 2-minute default
 * delivery deadline, on the client's clock (its test hook, moved by the test instead of waited out); a tenfold
 * overload on another server stays within the memory budget and loses nothing.
 */
class DefaultDeliveryAgainstAHungServerAndOverloadTest extends DefaultDeliveryKit {
    /** How far the test moves the client's clock at a time, once the client waits on it. */
    static final Duration STEP = Duration.ofMillis(10);

    /**
     * Each regular attempt's own deadline: gRPC times it on the real clock, so it is short here (the default is 60 s)
     * and attempts against the hung server fail by it, each then resent after a backoff on the client's clock. The
     * delivery deadline and the backoff are the defaults.
     */
    static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(5);

    /**
     * A hung server: it accepts every write (regular requests, stream messages and bulk batches) and never answers
     * or stores any. Every path writes at once against it. Each future must fail: not before the 2-minute delivery
     * deadline less the default policy's largest backoff (a hang shorter than that must not lose writes; a resend
     * whose backoff would end past the deadline is not started), and with the client's clock held just past the
     * deadline (nothing is left pending). Rows written before the hang (the bulk writers' first batches, opened while
     * the server answered) are acknowledged and stored.
     */
    @Test
    void everyPathFailsAtTheDefaultDeliveryDeadlineWhenTheServerHangs() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB setup = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(setup.createTable(METRICS, Context.newBuilder().build()).join().isOk());
            } finally {
                setup.shutdownGracefully();
            }
            ManualTime time = new ManualTime();
            GreptimeDB db = registered(ManualTimeClients.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(ATTEMPT_TIMEOUT).build(), time));
            BulkStreamWriter bulk = null;
            BatchingWriter batchingRegular = null;
            BatchingWriter batchingBulk = null;
            try {
                // Opened while the server answers: a hang mid-run finds the bulk streams open and in use.
                List<Tracked> before = new ArrayList<>();
                bulk = db.bulkStreamWriter(METRICS, BulkWrite.Config.newBuilder().build(), Context.newBuilder().build());
                TableBufferRoot root = bulk.tableBufferRoot(BATCH);
                root.addTable(batch(0));
                before.add(Tracked.of(Path.BULK, BATCH, time.getAsLong(), bulk.writeNext().thenApply(n -> (long) n)));
                BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().maxBatchRows(BATCH).build();
                batchingRegular = db.batchingWriter(cfg);
                batchingBulk = db.batchingWriter(cfg.toBuilder().path(BatchingWriter.Path.Bulk).build());
                before.add(Tracked.of(Path.BATCHING_BULK, BATCH, time.getAsLong(),
                        batchingBulk.write(batch(1)).thenApply(v -> (long) BATCH)));
                List<String> errors = new ArrayList<>();
                long ackedBefore = 0;
                for (Tracked t : before) {
                    Long n = t.await(Await.HANG_GUARD.toSeconds(), errors);
                    assertTrue(n != null, "written before the hang: " + errors);
                    ackedBefore += n;
                }
                assertEquals(ackedBefore, server.rowCount("metrics"));

                server.faults().neverRespond(true);
                long hungAt = time.getAsLong();
                List<Tracked> tracked = java.util.Collections.synchronizedList(new ArrayList<>());
                BulkStreamWriter bulkWriter = bulk;
                BatchingWriter overRegular = batchingRegular;
                BatchingWriter overBulk = batchingBulk;
                // Fewer writes than each path's in-flight limit, so that every one is sent at once.
                List<Runnable> paths = List.of(
                    () -> {
                        for (int b = 10; b < 15; b++) {
                            tracked.add(Tracked.of(Path.REGULAR, BATCH, time.getAsLong(), rowsOf(db.write(batch(b))), time));
                        }
                    },
                    () -> {
                        for (int s0 = 20; s0 < 26; s0 += 3) {
                            long at = time.getAsLong();
                            StreamWriter<Table, WriteOk> st = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
                            for (int b = s0; b < s0 + 3; b++) {
                                st.write(batch(b));
                            }
                            tracked.add(Tracked.of(Path.STREAM, 3L * BATCH, at,
                                    st.completed().thenApply(ok -> (long) ok.affectedRows()), time));
                        }
                    },
                    () -> {
                        for (int b = 30; b < 35; b++) {
                            root.addTable(batch(b));
                            tracked.add(Tracked.of(Path.BULK, BATCH, time.getAsLong(),
                                    bulkWriter.writeNext().thenApply(n -> (long) n), time));
                        }
                    },
                    () -> {
                        for (int b = 40; b < 43; b++) {
                            tracked.add(Tracked.of(Path.BATCHING_REGULAR, BATCH, time.getAsLong(),
                                    overRegular.write(batch(b)).thenApply(v -> (long) BATCH), time));
                        }
                    },
                    () -> {
                        for (int b = 50; b < 53; b++) {
                            tracked.add(Tracked.of(Path.BATCHING_BULK, BATCH, time.getAsLong(),
                                    overBulk.write(batch(b)).thenApply(v -> (long) BATCH), time));
                        }
                    });
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(paths.size());
                try {
                    List<CompletableFuture<Void>> writers = new ArrayList<>();
                    for (Runnable r : paths) {
                        writers.add(CompletableFuture.runAsync(r, pool));
                    }
                    CompletableFuture.allOf(writers.toArray(new CompletableFuture<?>[0]))
                            .get(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
                } finally {
                    pool.shutdownNow();
                }

                // The clock moves in steps while the client has a timer on it (a backoff, a batch's timeout, the
                // deadline), up to the deadline. Every write's deadline counts from its call (a batching writer's
                // too, however late its sender sends the batch), so all of them are due by then.
                long deadline = hungAt + DELIVERY_DEADLINE.toNanos();
                java.util.function.BooleanSupplier allDone = () -> List.copyOf(tracked).stream()
                        .allMatch(t -> t.acked().isDone());
                while (time.getAsLong() < deadline && !allDone.getAsBoolean()) {
                    Await.until("a timer of the client's clock, or every write's end", Await.HANG_GUARD,
                            () -> time.scheduled() > 0 || allDone.getAsBoolean());
                    time.advance(STEP);
                }
                long heldAt = time.getAsLong();
                // Held there, the clock runs what falls due but moves no further: every write ends without it.
                Await.until("every write ended with the client's clock held at its delivery deadline",
                        Await.HANG_GUARD, () -> {
                            time.runDue();
                            return allDone.getAsBoolean();
                        });
                assertEquals(heldAt, time.getAsLong(), "the clock stood still while the writes ended");

                java.util.Map<Path, long[]> table = new java.util.EnumMap<>(Path.class); // sent, acked, failed, min ms, max ms
                for (Tracked t : List.copyOf(tracked)) {
                    List<String> errs = new ArrayList<>();
                    Long n = t.await(Await.HANG_GUARD.toSeconds(), errs);
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
                            + " %d..%d ms after the write on the client's clock%n", e.getKey(), r[0], r[1], r[2], r[3], r[4]);
                }
                System.out.printf("[default-delivery] server hung / all paths: sent=%d acked=%d stored=%d failed=%d"
                        + " (plus %d rows acknowledged and stored before the hang); client's clock held %d ms past the"
                        + " deadline; first errors: %s%n", sent, acked, stored, failed, ackedBefore,
                        TimeUnit.NANOSECONDS.toMillis(heldAt - deadline), errors.subList(0, Math.min(errors.size(), 5)));
                assertEquals(5, table.size(), "every path wrote");
                assertEquals(acked, stored, "stored == acknowledged");
                assertEquals(sent, acked + failed, "acknowledged + failed == sent");
                assertEquals(0, acked, "a hung server acknowledges nothing");
                long earliest = DELIVERY_DEADLINE.toNanos() - RetryPolicy.newBuilder().build().maxBackoff().toNanos();
                for (Tracked t : tracked) {
                    long took = t.doneNanos()[0] - t.startedNanos();
                    assertTrue(took >= earliest, t.path() + ": failed " + TimeUnit.NANOSECONDS.toMillis(took)
                            + " ms after the write on the client's clock, before its delivery deadline of "
                            + DELIVERY_DEADLINE.toMillis() + " ms less one backoff");
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

    /** See {@link DefaultDeliveryKit#tenfoldOverload}: every path at once. */
    @Test
    void tenfoldOverloadOnEveryPathStaysWithinTheBudgetAndLosesNothing() throws Exception {
        tenfoldOverload(Path.values());
    }
}
