package dev.sluice.bulk.memory;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A compressed batch filled with rows until the next one is refused for the writer's {@code allocatorMaxAllocation}:
 * the rows it took are sent and stored, and the writer closes without an error, holding no memory after.
 */
class ACompressedBatchFilledToTheWritersMemoryCapIsStoredAndItsMemoryFreedTest {
    static final long CAP = 300_000;

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table)
                .addTag("host", DataType.String)
                .addField("id", DataType.Int64)
                .addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond)
                .build();
    }

    /** Fills the batch until a row is refused for the cap; returns the rows it holds. */
    static int fillToTheCap(TableBufferRoot batch) {
        for (long id = 0; ; id++) {
            try {
                batch.addRow("host", id, "m" + (id % 10), 1_700_000_000_000L + id);
            } catch (BulkWriteException e) {
                return batch.rowCount();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"Zstd", "Lz4"})
    void theRowsTheBatchTookAreStored(Compression compression) throws Exception {
        String table = "full_" + compression.name().toLowerCase();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            BulkStreamWriter w = db.bulkStreamWriter(schema(table),
                    BulkWrite.Config.newBuilder().allocatorMaxAllocation(CAP).build(),
                    Context.newBuilder().compression(compression).build());
            try {
                int rows = fillToTheCap(w.tableBufferRoot(8));
                assertEquals(rows, w.writeNext().get(120, TimeUnit.SECONDS));
                assertEquals(rows, server.rowCount(table));
            } finally {
                try {
                    w.close();
                } catch (IllegalStateException e) {
                    // what close throws is closingTheWriterThrowsNothingAndFreesEveryBuffer's to report
                } finally {
                    db.shutdownNow();
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"Zstd", "Lz4"})
    void closingTheWriterThrowsNothingAndFreesEveryBuffer(Compression compression) throws Exception {
        String table = "full_close_" + compression.name().toLowerCase();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                BulkStreamWriter w = db.bulkStreamWriter(schema(table),
                        BulkWrite.Config.newBuilder().allocatorMaxAllocation(CAP).build(),
                        Context.newBuilder().compression(compression).build());
                fillToTheCap(w.tableBufferRoot(8));
                CompletableFuture<Integer> sent = w.writeNext();
                sent.handle((n, e) -> null).get(120, TimeUnit.SECONDS); // stored or failed: either way answered
                assertDoesNotThrow(w::close);
                NothingHeld.await(db, Duration.ofSeconds(30), true);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
