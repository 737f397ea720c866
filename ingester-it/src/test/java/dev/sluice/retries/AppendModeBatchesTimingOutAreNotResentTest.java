package dev.sluice.retries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.SharesJvm;
import dev.sluice.Warm;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Under the default retry policy, a write whose context carries {@code append_mode=true} and that times out (the
 * server may have committed it) is not sent again: on the regular path and through a batching writer, its rows are
 * stored at most once, and the caller gets the timeout.
 */
@SharesJvm
class AppendModeBatchesTimingOutAreNotResentTest {
    private static final Context APPEND = Context.newBuilder().hint("append_mode", "true").build();

    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("usage", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    private static long inserts(GreptimeTestServer server, String table) {
        return server.requests().stream().filter(r -> r.kind().equals("insert") && r.tables().contains(table)).count();
    }

    /**
     * A resend would be stored on arrival (the server holds only its answer): none comes within a window longer than
     * the client's timeout and backoff, and the write reached the server at most once. The window proves that
     * something did not happen, so it is waited out in full.
     */
    private static void assertNotResent(GreptimeTestServer server, String table) {
        boolean resent = Await.happensWithin(Duration.ofSeconds(3), () -> inserts(server, table) > 2);
        assertFalse(resent, "the timed-out write was resent: " + inserts(server, table) + " inserts");
        // one insert is the first row's; the rest are copies of the ten-row write
        AtMostOnce.assertStored(server, table, r -> r.kind().equals("insert") && r.tables().contains(table)
                && r.rows() == 10, 1, 10);
    }

    /**
     * Creates the table and stores its first row through a client of its own with the default request timeout, so
     * that a slow machine cannot time that write out; the test's client has a 500 ms timeout for the write under test,
     * and is warmed (connected, with a write that is resent until stored) before that timeout matters.
     */
    private static void firstRow(GreptimeTestServer server, TableSchema s) {
        GreptimeDB setup = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
        try {
            Result<WriteOk, Err> r = setup.write(List.of(Table.from(s).addRow("h", 0.0, 1L)), WriteOp.Insert, APPEND)
                    .join();
            assertTrue(r.isOk(), "the first row is stored: " + r);
        } finally {
            setup.shutdownGracefully();
        }
    }

    @Test
    void regularWrite() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Duration.ofMillis(500)).build());
            TableSchema s = schema("append_regular_once");
            firstRow(server, s);
            Warm.regular(db);
            server.faults().latency(Duration.ofMillis(1_200));
            Table t = Table.from(s);
            for (int i = 0; i < 10; i++) {
                t.addRow("h" + i, i * 0.5, 1_700_000_000_000L + i);
            }
            Result<WriteOk, Err> r = db.write(List.of(t), WriteOp.Insert, APPEND).join();
            server.faults().reset();
            assertFalse(r.isOk(), "the write timed out");
            assertNotResent(server, "append_regular_once");
            assertTrue(db.shutdownGracefully());
        }
    }

    @Test
    void batchingWriter() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Duration.ofMillis(500)).build());
            TableSchema s = schema("append_batching_once");
            firstRow(server, s);
            Warm.regular(db);
            server.faults().latency(Duration.ofMillis(1_200));
            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(10).build(), APPEND);
            CompletableFuture<Void> last = null;
            for (int i = 0; i < 10; i++) {
                last = w.write(s, "h" + i, i * 0.5, 1_700_000_000_000L + i);
            }
            CompletableFuture<Void> f = last;
            CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, f::join);
            server.faults().reset();
            assertTrue(e.getCause() instanceof BatchWriteException, String.valueOf(e.getCause()));
            assertNotResent(server, "append_batching_once");
            w.close();
            assertTrue(db.shutdownGracefully());
        }
    }
}
