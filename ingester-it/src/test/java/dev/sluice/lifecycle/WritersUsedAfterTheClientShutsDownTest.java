package dev.sluice.lifecycle;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.WriteOk;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A writer opened before the client shut down and used after it says the client is shut down (synchronously or
 * in its future), never a raw executor rejection, a pending future or a silent success.
 */
@SharesJvm
class WritersUsedAfterTheClientShutsDownTest {
    private GreptimeTestServer server;
    private GreptimeDB db;

    @BeforeEach
    void start() {
        server = GreptimeTestServer.start();
        db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
    }

    @AfterEach
    void stop() {
        db.shutdownNow();
        server.close();
    }

    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("usage", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    /** The call throws, or its future fails, with a message about the client (or writer) being shut/closed. */
    private static void assertRefusedClearly(String what, Supplier<CompletableFuture<?>> call) {
        Throwable t;
        try {
            CompletableFuture<?> f = call.get();
            f.get(30, TimeUnit.SECONDS);
            fail(what + " succeeded on a shut-down client");
            return;
        } catch (java.util.concurrent.ExecutionException e) {
            t = e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            fail(what + ": the future is still pending 30 s after the client shut down");
            return;
        } catch (Throwable e) {
            t = e;
        }
        String chain = "";
        for (Throwable c = t; c != null; c = c.getCause()) {
            chain += c.getClass().getName() + ": " + c.getMessage() + " | ";
        }
        String lower = chain.toLowerCase(Locale.ROOT);
        assertTrue(lower.contains("shut down") || lower.contains("closed"), what + ": " + chain);
        assertTrue(!(t instanceof java.util.concurrent.RejectedExecutionException), what + " raw rejection: " + chain);
    }

    @Test
    void batchingWriterOpenedBeforeGracefulShutdown() {
        TableSchema s = schema("batching_after");
        BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build());
        w.write(s, "h0", 0.5, 1_700_000_000_000L);
        assertTrue(db.shutdownGracefully());
        assertEquals(1, server.rowCount("batching_after"), "the buffered row was flushed by the shutdown");
        assertRefusedClearly("batching write after shutdown", () -> w.write(s, "h1", 0.5, 1_700_000_000_001L));
    }

    @Test
    void batchingWriterOpenedBeforeShutdownNow() {
        TableSchema s = schema("batching_after_now");
        BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build());
        db.shutdownNow();
        assertRefusedClearly("batching write after shutdownNow", () -> w.write(s, "h1", 0.5, 1_700_000_000_001L));
    }

    @Test
    void streamOpenedBeforeShutdownNow() {
        TableSchema s = schema("stream_after");
        StreamWriter<Table, WriteOk> w = db.streamWriter();
        db.shutdownNow();
        assertRefusedClearly("stream write after shutdownNow", () -> {
            w.write(Table.from(s).addRow("h", 0.1, 1_700_000_000_000L));
            return w.completed();
        });
    }

    @Test
    void bulkWriterOpenedBeforeShutdownNow() {
        TableSchema s = schema("bulk_after");
        BulkStreamWriter bulk = db.bulkStreamWriter(s);
        TableBufferRoot batch = bulk.tableBufferRoot(10);
        db.shutdownNow();
        assertRefusedClearly("bulk writeNext after shutdownNow", () -> {
            batch.addRow("h", 0.1, 1_700_000_000_000L);
            return bulk.writeNext();
        });
        bulk.close();
        assertEquals(0, db.stats().bulkAllocatedBytes(), "the writer's off-heap memory was released");
    }
}
