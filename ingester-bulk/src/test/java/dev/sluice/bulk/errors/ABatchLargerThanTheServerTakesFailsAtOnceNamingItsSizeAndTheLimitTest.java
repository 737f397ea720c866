package dev.sluice.bulk.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server that takes messages up to 1 MiB (GreptimeDB's {@code grpc.max_recv_message_size}) gets a 2 MiB bulk
 * batch after a small one: the small one is stored, the large one fails at once (not resent in vain until its
 * delivery deadline) with a {@link BulkWriteException} naming the table, the batch's size and the server's limit, and
 * the writer's memory is freed on close. The error also says what to do: send smaller batches, or raise the server's
 * limit.
 */
class ABatchLargerThanTheServerTakesFailsAtOnceNamingItsSizeAndTheLimitTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final String TABLE = "over_server_message_size";

    @Test
    void theLargeBatchFailsAtOnceNamingItsSizeAndTheLimit() throws Exception {
        sendTheLargeBatch(false);
    }

    @Test
    void theErrorSaysWhatToDo() throws Exception {
        sendTheLargeBatch(true);
    }

    private static void sendTheLargeBatch(boolean adviceToo) throws Exception {
        TableSchema schema = TableSchema.newBuilder(TABLE).addTag("host", DataType.String)
                .addField("msg", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (GreptimeTestServer server = GreptimeTestServer.builder().maxMessageBytes(1 << 20).start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                // A resend loop would end by this deadline; the batch must fail long before it.
                RetryPolicy policy = RetryPolicy.newBuilder().deliveryTimeout(Duration.ofMinutes(10)).build();
                try (BulkStreamWriter w = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(),
                        Context.newBuilder().retryPolicy(policy).build())) {
                    TableBufferRoot batch = w.tableBufferRoot(2_048);
                    for (int i = 0; i < 10; i++) {
                        batch.addRow("h", "small " + i, (long) i);
                    }
                    assertEquals(10, w.writeNext().get(BOUND.toSeconds(), TimeUnit.SECONDS));
                    String kib = "k".repeat(1_024);
                    for (int i = 0; i < 2_048; i++) {
                        batch.addRow("h", kib, 100L + i);
                    }
                    CompletableFuture<Integer> large = w.writeNext();
                    Await.until("the oversized batch is answered", BOUND, large::isDone);
                    try {
                        large.get();
                        fail("a 2 MiB batch was stored by a server taking 1 MiB messages");
                    } catch (ExecutionException e) {
                        Throwable t = e.getCause();
                        assertTrue(t instanceof BulkWriteException, t::toString);
                        String m = String.valueOf(t.getMessage()).toLowerCase();
                        assertTrue(m.contains(TABLE), "names the table: " + t.getMessage());
                        assertTrue(m.contains("1048576") && m.contains("too large"),
                                "names the size and the server's limit: " + t.getMessage());
                        if (adviceToo) {
                            assertTrue(m.contains("smaller") && m.contains("max_recv_message_size"),
                                    "says to send smaller batches or raise the server's limit: " + t.getMessage());
                        }
                    }
                    assertEquals(0, w.replays(), "the oversized batch was not resent");
                }
                assertEquals(10, server.rowCount(TABLE));
                NothingHeld.await(db, BOUND, true);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
