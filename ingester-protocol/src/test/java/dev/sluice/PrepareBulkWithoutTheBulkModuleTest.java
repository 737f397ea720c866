package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import org.junit.jupiter.api.Test;

/**
 * Without {@code dev.sluice:ingester-bulk} on the class path (this module's tests do not have it),
 * {@code prepareBulk()} throws the documented IllegalStateException naming the missing artifact, every time it is
 * called, sends nothing, and leaves the client usable for regular writes.
 */
class PrepareBulkWithoutTheBulkModuleTest {
    @Test
    void prepareNamesTheMissingBulkModuleEveryTimeAndSendsNothing() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                for (int i = 0; i < 3; i++) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, db::prepareBulk);
                    assertTrue(e.getMessage() != null && e.getMessage().contains("ingester-bulk"), e.getMessage());
                }
                assertEquals(0, db.wireBytesSent(), "bytes sent");
                assertTrue(server.tables().isEmpty(), "tables: " + server.tables());
                assertEquals(0, db.stats().bulkAllocatedBytes());
                dev.sluice.data.TableSchema s = dev.sluice.data.TableSchema.newBuilder("after_prepare")
                        .addTag("k", dev.sluice.data.DataType.String)
                        .addTimestamp("ts", dev.sluice.data.DataType.TimestampMillisecond).build();
                assertTrue(db.write(dev.sluice.data.Table.from(s).addRow("a", 1L)).join().isOk());
                assertEquals(1, server.rowCount("after_prepare"));
            } finally {
                db.shutdownNow();
            }
            IllegalStateException shut = assertThrows(IllegalStateException.class, db::prepareBulk);
            assertTrue(shut.getMessage().contains("shut down"), shut.getMessage());
        }
    }
}
