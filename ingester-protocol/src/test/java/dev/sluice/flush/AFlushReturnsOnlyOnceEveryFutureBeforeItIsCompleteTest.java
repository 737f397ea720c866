package dev.sluice.flush;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * When {@code flush} returns, the future of every write made before it is complete: a caller that reads the
 * futures (or counts their callbacks) right after the flush finds each batch settled, never one still being settled
 * by the answer's thread.
 */
class AFlushReturnsOnlyOnceEveryFutureBeforeItIsCompleteTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int FLUSHES = 3_000;

    @Test
    void everyFutureOfAWriteBeforeTheFlushIsCompleteWhenItReturns() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().orderedPerTable(true).build())) {
                for (int i = 0; i < FLUSHES; i++) {
                    CompletableFuture<Void> f = w.write(CPU, "h", 1.0, (long) i);
                    assertTrue(w.flush(WAIT), "flush " + i + " acknowledged");
                    assertTrue(f.isDone(), "the write's future is complete when flush " + i + " returned");
                }
                assertEquals(FLUSHES, server.rowCount("cpu"), "rows stored");
            } finally {
                db.shutdownGracefully();
            }
        }
    }
}
