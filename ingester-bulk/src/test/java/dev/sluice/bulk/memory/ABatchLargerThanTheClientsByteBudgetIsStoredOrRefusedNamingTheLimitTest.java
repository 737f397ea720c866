package dev.sluice.bulk.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A single bulk batch larger than the whole client byte budget ({@code maxInFlightBytes}) can never wait its way into
 * the budget. It must either be sent (alone, as one message always fits) or be refused with a message naming the limit
 * to raise; the budget is given back either way.
 */
class ABatchLargerThanTheClientsByteBudgetIsStoredOrRefusedNamingTheLimitTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("over_budget").addTag("host", DataType.String)
            .addField("msg", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void aThreeMebibyteBatchUnderAOneMebibyteBudget() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxInFlightBytes(1L << 20).maxBlock(Duration.ofSeconds(2)).build());
            try {
                String line = "x".repeat(1_000);
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder().build(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(3_000);
                    for (int i = 0; i < 3_000; i++) {
                        batch.addRow("h", line, (long) i);
                    }
                    CompletableFuture<Integer> f = w.writeNext();
                    try {
                        assertEquals(3_000, f.get(120, TimeUnit.SECONDS));
                        assertEquals(3_000, server.rowCount("over_budget"));
                    } catch (ExecutionException e) {
                        String m = String.valueOf(e.getCause().getMessage());
                        assertTrue(m.contains("maxInFlightBytes") || m.contains("max_in_flight_bytes"),
                                "a batch that can never fit says which limit to raise: " + e.getCause());
                    }
                }
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), true);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
