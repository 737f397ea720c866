package dev.sluice.bulk.values;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.BatchingWriter;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client of another database than {@code public} (named alone, or as {@code catalog-schema}): its bulk writer and
 * its batching writer's bulk path create the table in that database and store the rows there, never in
 * {@code public}.
 */
class BulkWritesLandInTheClientsDatabaseTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("elsewhere").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @ParameterizedTest
    @ValueSource(strings = {"metrics", "greptime-metrics"})
    void rowsAreStoredInTheDatabase(String database) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            server.createDatabase("metrics");
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), database).build());
            try {
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder().build(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(10);
                    for (int i = 0; i < 10; i++) {
                        batch.addRow("h", i * 1.0, (long) i);
                    }
                    assertEquals(10, w.writeNext().get(60, TimeUnit.SECONDS));
                    w.completed();
                }
                TableSchema other = TableSchema.newBuilder("elsewhere_batched").addTag("host", DataType.String)
                        .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
                try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder()
                        .path(BatchingWriter.Path.Bulk).build(), Context.newBuilder().build())) {
                    for (int i = 0; i < 10; i++) {
                        w.write(other, "h", i * 1.0, (long) i);
                    }
                    w.flushOrThrow(Duration.ofSeconds(60));
                }
                assertEquals(10, server.rowCount("metrics", "elsewhere"));
                assertEquals(10, server.rowCount("metrics", "elsewhere_batched"));
                assertFalse(server.tables("public").contains("elsewhere"));
                assertFalse(server.tables("public").contains("elsewhere_batched"));
            } finally {
                db.shutdownNow();
            }
        }
    }
}
