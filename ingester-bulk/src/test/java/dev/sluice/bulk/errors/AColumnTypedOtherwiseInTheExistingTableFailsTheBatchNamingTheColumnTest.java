package dev.sluice.bulk.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.ErrorKind;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A bulk writer whose schema types a column otherwise than the existing table: the server refuses the batch, and the
 * caller gets a {@link BulkWriteException} of kind Data naming the table and the column, once, without resends; the
 * table keeps only its earlier rows and the client holds nothing afterwards.
 */
class AColumnTypedOtherwiseInTheExistingTableFailsTheBatchNamingTheColumnTest {
    @Test
    void theRefusalNamesTableAndColumn() throws Exception {
        TableSchema existing = TableSchema.newBuilder("typed_otherwise").addTag("host", DataType.String)
                .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        TableSchema mine = TableSchema.newBuilder("typed_otherwise").addTag("host", DataType.String)
                .addField("v", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.write(Table.from(existing).addRow("h", 1.0, 1L)).get(60, TimeUnit.SECONDS).isOk());
                try (BulkStreamWriter w = db.bulkStreamWriter(mine, BulkWrite.Config.newBuilder().build(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(5);
                    for (int i = 0; i < 5; i++) {
                        batch.addRow("h", "text " + i, 10L + i);
                    }
                    CompletableFuture<Integer> f = w.writeNext();
                    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(120, TimeUnit.SECONDS));
                    BulkWriteException b = assertInstanceOf(e.getCause());
                    assertEquals(ErrorKind.Data, b.kind(), b.toString());
                    assertTrue(b.getMessage().contains("typed_otherwise"), "names the table: " + b.getMessage());
                    assertEquals("v", b.err().column().orElse(null), "names the column: " + b.err());
                    assertEquals(0, w.replays(), "a data error is not resent");
                    assertThrows(BulkWriteException.class, w::completed);
                }
                assertEquals(1, server.rowCount("typed_otherwise"));
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), true);
            } finally {
                db.shutdownNow();
            }
        }
    }

    private static BulkWriteException assertInstanceOf(Throwable t) {
        assertTrue(t instanceof BulkWriteException, "a BulkWriteException: " + t);
        return (BulkWriteException) t;
    }
}
