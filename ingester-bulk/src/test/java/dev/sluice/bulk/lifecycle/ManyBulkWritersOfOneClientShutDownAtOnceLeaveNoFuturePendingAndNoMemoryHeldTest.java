package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Eight bulk writers of one client, each with batches whose answers the server holds (small ones and one kept in
 * its own vectors) and rows in its open batch, when the client is shut down at once: every batch future completes
 * (stored or with a {@link BulkWriteException}), {@code completed()} throws rather than waits, and the client holds
 * no off-heap memory once the writers are closed, or, for writers the program never closes, once the client is shut
 * down.
 */
class ManyBulkWritersOfOneClientShutDownAtOnceLeaveNoFuturePendingAndNoMemoryHeldTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final int WRITERS = 8;

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("v", DataType.Int64)
                .addField("msg", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true})
    void everyFutureCompletesAndTheMemoryIsFreed(boolean writersClosed) throws Exception {
        shutDownWithWritersOpen(writersClosed);
    }

    @Disabled("fails: after shutdownNow() the client still holds the off-heap vectors of every bulk writer the program"
            + " did not close (db.stats().bulkAllocatedBytes() stays at 9490944 5 s later): the shutdown fails their"
            + " batches but frees none of their memory")
    @ParameterizedTest
    @ValueSource(booleans = {false})
    void theMemoryOfWritersNeverClosedIsFreedByTheShutdown(boolean writersClosed) throws Exception {
        shutDownWithWritersOpen(writersClosed);
    }

    private static void shutDownWithWritersOpen(boolean writersClosed) throws Exception {
        String line = "m".repeat(200);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            List<BulkStreamWriter> writers = new ArrayList<>();
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            try {
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> "bulk".equals(r.kind()));
                for (int k = 0; k < WRITERS; k++) {
                    BulkStreamWriter w = db.bulkStreamWriter(schema("shut_many_" + k), BulkWrite.Config.newBuilder()
                            .build(), Context.newBuilder().compression(k % 2 == 0 ? Compression.None
                            : Compression.Zstd).build());
                    writers.add(w);
                    TableBufferRoot batch = w.tableBufferRoot(64);
                    long ts = 0;
                    for (int b = 0; b < 3; b++) {
                        int rows = b == 2 && k == 0 ? 25_000 : 20; // one batch past 4 MiB, kept in its vectors
                        for (int i = 0; i < rows; i++, ts++) {
                            batch.addRow("h" + k, ts, line, ts);
                        }
                        acks.add(w.writeNext());
                    }
                    for (int i = 0; i < 10; i++, ts++) {
                        batch.addRow("h" + k, ts, line, ts); // left in the open batch
                    }
                }
                db.shutdownNow();
                for (CompletableFuture<Integer> f : acks) {
                    Await.until("every batch future completes after the shutdown", BOUND, f::isDone);
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        assertTrue(e.getCause() instanceof BulkWriteException, e.getCause()::toString);
                    }
                }
                for (BulkStreamWriter w : writers) {
                    assertThrows(RuntimeException.class, w::completed, "completed() after the shutdown");
                }
                if (writersClosed) {
                    for (BulkStreamWriter w : writers) {
                        w.close();
                        Await.until("a closed writer holds no memory", BOUND, () -> w.allocatedBytes() == 0);
                    }
                }
                Await.until("the client holds no bulk memory (holds " + db.stats().bulkAllocatedBytes() + ")",
                        Duration.ofSeconds(5), () -> db.stats().bulkAllocatedBytes() == 0);
                assertEquals(0, db.stats().bytesInFlight(), "no budget held");
            } finally {
                server.faults().reset();
                db.shutdownNow();
            }
        }
    }
}
