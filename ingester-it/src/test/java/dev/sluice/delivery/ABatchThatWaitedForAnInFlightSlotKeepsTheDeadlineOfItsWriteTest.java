package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.ManualTimeClients;
import dev.sluice.SharesJvm;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.send.ManualTime;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batching writer's batch has one delivery deadline, counted from its {@code write()}: time spent waiting for an
 * in-flight slot behind a slow batch is part of it, and the write that finally sends the batch keeps it rather than
 * starting a fresh one. On the client's clock (its test hook), on either path.
 */
@SharesJvm
class ABatchThatWaitedForAnInFlightSlotKeepsTheDeadlineOfItsWriteTest {
    static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    /** The delivery deadline: long, as the client's clock is moved, not waited out. */
    static final Duration DEADLINE = Duration.ofMinutes(10);

    /** How long the first batch stays unanswered on the client's clock while the second waits for the slot. */
    static final Duration SLOW_ANSWER = DEADLINE.minusSeconds(10);

    static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

    static Table row(String host, long ts) {
        Table t = Table.from(CPU, 1);
        t.addRow(host, 0.5, ts);
        return t;
    }

    /**
     * With one in-flight slot, batch A reaches the server and its answer is held while the client's clock moves
     * to just before the deadline; batch B, written with A, waits for the slot. Once A is answered, B is sent and
     * refused (retryably) on every attempt: B must fail by the deadline counted from its write, not one counted
     * from when it got the slot, so with the clock held there it ends; it is resent until about then (not failed
     * early), and nothing of it is stored.
     */
    @ParameterizedTest
    @EnumSource(BatchingWriter.Path.class)
    void theSecondBatchFailsByTheDeadlineOfItsWrite(BatchingWriter.Path path) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            ManualTime time = new ManualTime();
            GreptimeDB db = ManualTimeClients.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(DEADLINE.multipliedBy(2))
                    .retryPolicy(RetryPolicy.newBuilder().backoff(Duration.ofMillis(100), MAX_BACKOFF)
                            .deliveryTimeout(DEADLINE).build()).build(), time);
            try {
                assertTrue(db.createTable(CPU, Context.newBuilder().build()).join().isOk());
                // One slot, and no batch riding along in another's request.
                BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(path)
                        .maxInFlightRequests(1).maxBatchRows(1).build());
                // Warm: the channel (and on the bulk path the table's stream) is open before the clock matters.
                w.write(row("warm", 1_700_000_000_000L)).get(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);

                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER);
                long start = time.getAsLong();
                CompletableFuture<Void> a = w.write(row("a", 1_700_000_001_000L));
                CompletableFuture<Void> b = w.write(row("b", 1_700_000_002_000L));
                long[] bEnded = {0};
                b.whenComplete((v, e) -> bEnded[0] = time.getAsLong());
                server.faults().awaitHeld(1, Await.HANG_GUARD);
                time.advance(SLOW_ANSWER);
                server.faults().failEvery(1, StatusCode.StorageUnavailable, "write buffer full");
                server.faults().release();
                a.get(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
                // B is sent on the client's own thread once A's slot is free: the clock moves on only after that,
                // so what is measured is B's deadline, not how soon that thread ran.
                Await.until(path + ": the second batch reached the server or ended", Await.HANG_GUARD,
                        () -> server.faults().injectedCount() >= 1 || b.isDone());
                assertTrue(server.faults().injectedCount() >= 1, path + ": the second batch reached the server"
                        + " before its deadline on the client's clock had passed");

                long deadline = start + DEADLINE.toNanos();
                while (time.getAsLong() - deadline < 0 && !b.isDone()) {
                    Await.until("a timer of the client's clock, or the second batch's end", Await.HANG_GUARD,
                            () -> time.scheduled() > 0 || b.isDone());
                    time.advance(Duration.ofMillis(10));
                }
                long heldAt = time.getAsLong();
                Await.until(path + ": the second batch ended with the client's clock held at its write's deadline",
                        Await.HANG_GUARD, () -> {
                            time.runDue();
                            return b.isDone();
                        });
                assertEquals(heldAt, time.getAsLong(), "the clock stood still while the batch ended");
                assertTrue(b.isCompletedExceptionally(), path + ": a batch refused on every attempt fails");
                long endedAfter = bEnded[0] - start;
                assertTrue(endedAfter - (DEADLINE.toNanos() - MAX_BACKOFF.toNanos()) >= 0, path + ": failed "
                        + TimeUnit.NANOSECONDS.toMillis(endedAfter) + " ms after its write on the client's clock, more"
                        + " than a backoff before its deadline of " + DEADLINE.toMillis() + " ms");
                assertTrue(server.faults().injectedCount() >= 1, path + ": the second batch reached the server");
                assertEquals(2, server.rowCount("cpu"), path + ": the warm-up and the first batch are stored, the"
                        + " refused one is not");
                server.faults().reset();
                w.close();
            } finally {
                db.shutdownNow();
            }
        }
    }
}
