package dev.sluice.bulk;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code prepareBulk()} readies bulk writing without touching the server: nothing is sent, no table appears, the
 * memory it used is free again, it can be called again, and writers opened afterwards write as any other. On a
 * shut-down client it refuses, as opening a writer does.
 */
@SharesJvm
class PreparingBulkWritesTest {
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

    @Test
    void preparingSendsNothingAndKeepsNoMemory() {
        db.prepareBulk();
        db.prepareBulk();
        // The client's own health checks may reach the server meanwhile; nothing else may.
        assertEquals(java.util.List.of(), server.requests().stream().filter(r -> !r.method().contains("Health"))
                .map(r -> r.method() + " " + r.kind()).toList(), "requests the server saw");
        assertEquals(0, db.wireBytesSent(), "bytes sent");
        assertTrue(server.tables().isEmpty(), "tables: " + server.tables());
        assertEquals(0, db.stats().bulkAllocatedBytes(), "off-heap bytes still held");
    }

    @Test
    void writersOpenedAfterPreparingStoreTheirRows() throws Exception {
        db.prepareBulk();
        TableSchema schema = TableSchema.newBuilder("prepared").addTag("host", DataType.String)
                .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (BulkStreamWriter w = db.bulkStreamWriter(schema)) {
            TableBufferRoot root = w.tableBufferRoot(100);
            for (int i = 0; i < 100; i++) {
                root.addRow("h" + (i % 3), i * 0.5, 1_700_000_000_000L + i);
            }
            assertEquals(100, w.writeNext().get(30, TimeUnit.SECONDS));
            w.completed();
        }
        assertEquals(100, server.rowCount("prepared"));
    }

    @Test
    void aShutDownClientRefusesToPrepare() {
        db.shutdownNow();
        IllegalStateException e = assertThrows(IllegalStateException.class, db::prepareBulk);
        assertTrue(e.getMessage().contains("shut down"), e.getMessage());
    }
}
