package dev.sluice.bulk.memory;

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
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Asking for a batch with room for far more rows than {@code allocatorMaxAllocation} holds is refused with a
 * {@link BulkWriteException} naming the limit (not an {@link OutOfMemoryError} or an arithmetic overflow), nothing is
 * kept, and a reasonable size asked next gives a batch whose rows are stored.
 */
class AnOversizedInitialBatchIsRefusedNamingTheCapAndLeavesTheWriterUsableTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("oversized_root").addTag("host", DataType.String)
            .addField("msg", DataType.String).addField("v", DataType.Float64)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    @ParameterizedTest
    @ValueSource(ints = {Integer.MAX_VALUE, 1 << 30, 200_000_000})
    void theRefusalNamesTheCap(int rows) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA,
                        BulkWrite.Config.newBuilder().allocatorMaxAllocation(64L << 20).build(),
                        Context.newBuilder().build())) {
                    Throwable refused = assertThrows(Throwable.class, () -> w.tableBufferRoot(rows));
                    assertTrue(refused instanceof BulkWriteException || refused instanceof IllegalArgumentException,
                            "a clear refusal: " + refused);
                    assertTrue(String.valueOf(refused.getMessage()).contains("allocatorMaxAllocation")
                            || refused instanceof IllegalArgumentException, "names the limit: " + refused);
                    TableBufferRoot batch = w.tableBufferRoot(100);
                    for (int i = 0; i < 100; i++) {
                        batch.addRow("h", "line " + i, i * 1.0, (long) i);
                    }
                    assertEquals(100, w.writeNext().get(60, TimeUnit.SECONDS));
                    assertEquals(100, w.completed());
                }
                assertEquals(100, server.rowCount("oversized_root"));
                Await.until("the bulk memory is released", Duration.ofSeconds(60),
                        () -> db.stats().bulkAllocatedBytes() == 0);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
