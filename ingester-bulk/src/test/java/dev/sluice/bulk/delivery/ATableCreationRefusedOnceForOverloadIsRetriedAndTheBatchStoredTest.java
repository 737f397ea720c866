package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The table creation a bulk writer starts when it opens is refused once with a retryable error (rate limit, region
 * busy, unavailable): it is retried like any write under the default retry policy, and the first batch is stored.
 */
class ATableCreationRefusedOnceForOverloadIsRetriedAndTheBatchStoredTest {
    @ParameterizedTest
    @EnumSource(value = StatusCode.class, names = {"RateLimited", "RegionBusy", "TableUnavailable"})
    void theFirstBatchIsStored(StatusCode code) throws Exception {
        TableSchema schema = TableSchema.newBuilder("created_later_" + code.name().toLowerCase())
                .addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                server.faults().failNext(1, code, "try again later");
                try (BulkStreamWriter w = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(10);
                    for (int i = 0; i < 10; i++) {
                        batch.addRow("h", i * 1.0, (long) i);
                    }
                    assertEquals(10, w.writeNext().get(120, TimeUnit.SECONDS));
                    assertEquals(10, w.completed());
                }
                assertEquals(10, server.rowCount(schema.tableName()));
            } finally {
                db.shutdownNow();
            }
        }
    }
}
