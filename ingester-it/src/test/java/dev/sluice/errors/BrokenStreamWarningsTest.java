package dev.sluice.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stream or bulk writer whose server goes away breaks on every reopening; the first break is a warning saying
 * what happens next, the rest are not repeated at WARN or INFO.
 */
class BrokenStreamWarningsTest {
    private static final Context FOUR_QUICK_ATTEMPTS = Context.newBuilder().retryPolicy(
            RetryPolicy.newBuilder().maxAttempts(4).backoff(Duration.ofMillis(1), Duration.ofMillis(2)).build()).build();
    private GreptimeTestServer server;
    private GreptimeDB db;

    @BeforeEach
    void start() {
        server = GreptimeTestServer.start();
        db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .healthCheckInterval(Duration.ZERO).build());
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

    @Test
    void aBulkWriterWarnsOnceWhileItsStreamKeepsBreaking() {
        TableSchema schema = schema("bulk_breaking");
        // The table exists before the server goes away: the writer's stream, not its table's creation, is what breaks.
        assertTrue(db.createTable(schema, Context.newBuilder().build()).join().isOk(), "table created");
        try (BulkStreamWriter bulk = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().createTable(false).build(),
                FOUR_QUICK_ATTEMPTS);
             StandardErrorCapture log = new StandardErrorCapture()) {
            server.stop();
            bulk.tableBufferRoot(4).addRow("h1", 0.5, 1_700_000_000_000L);
            CompletableFuture<Integer> batch = bulk.writeNext();
            assertThrows(CompletionException.class, batch::join);
            assertTrue(bulk.replays() >= 2, "the stream broke more than once: " + bulk.replays());
            String broke = "bulk stream of 'bulk_breaking' broke";
            assertEquals(1, log.linesContaining(broke), log.text());
            String line = log.text().lines().filter(l -> l.contains(broke)).findFirst().orElseThrow();
            assertTrue(line.contains("WARN") && line.contains("resent") && line.contains("delivery deadline"), line);
        }
    }

    @Test
    void aStreamWarnsOnceWhileItKeepsBreaking() {
        StreamWriter<Table, WriteOk> stream = db.streamWriter(StreamWriter.Config.newBuilder().replay(true).build(), FOUR_QUICK_ATTEMPTS);
        try (StandardErrorCapture log = new StandardErrorCapture()) {
            Table t = Table.from(schema("stream_breaking"));
            t.addRow("h1", 0.5, 1_700_000_000_000L);
            stream.write(t);
            server.stop();
            assertThrows(CompletionException.class, () -> stream.completed().join());
            assertTrue(stream.replays() >= 2, "the stream broke more than once: " + stream.replays());
            assertEquals(1, log.linesContaining("stream broke"), log.text());
            String line = log.text().lines().filter(l -> l.contains("stream broke")).findFirst().orElseThrow();
            assertTrue(line.contains("WARN") && line.contains("replayed") && line.contains("delivery deadline"), line);
        } finally {
            stream.close();
        }
    }
}
