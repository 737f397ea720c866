package dev.sluice.flush.edges;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code flushOrThrow} returns once failures the client's retries outlast are behind it (nothing to report), and
 * when a refused batch of one table takes another table's rows with it, the error it throws names both tables.
 */
class FlushOrThrowOutlastsPassingFailuresAndKeepsOtherTablesRowsTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @Test
    void retriedOverloadIsNotReportedAndEveryRowIsStored() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .retryPolicy(RetryPolicy.newBuilder().backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                            .build()).build());
                 BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(10).build())) {
                server.faults().failNext(3, StatusCode.RateLimited, "too many writes, slow down");
                for (int i = 0; i < 25; i++) {
                    w.write(schema("cpu"), "h" + i, (double) i, 1_700_000_000_000L);
                }
                w.flushOrThrow(WAIT);
                assertEquals(25, server.rowCount("cpu"));
            }
        }
    }

    @Test
    void oneTablesRefusalIsThrownWhileTheOtherTablesRowsAreStored() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .retryPolicy(RetryPolicy.none()).build());
                 BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(100).build())) {
                server.faults().refuseValue("host", "poison", StatusCode.InvalidArguments,
                        "Column host of table bad cannot hold this value");
                for (int i = 0; i < 10; i++) {
                    w.write(schema("good"), "g" + i, (double) i, 1_700_000_000_000L);
                }
                w.write(schema("bad"), "poison", 1.0, 1_700_000_000_000L);
                BatchWriteException e = assertThrows(BatchWriteException.class, () -> w.flushOrThrow(WAIT));
                assertEquals(ErrorKind.Data, e.kind());
                assertEquals("host", e.err().column().orElse(null), e.err().toString());
                assertEquals(0, server.rowCount("bad"));
                if (server.rowCount("good") == 0) {
                    // both tables shared the refused request: the error names every table whose rows it lost
                    assertTrue(e.err().tables().contains("good") && e.err().tables().contains("bad"),
                            "good's 10 rows were not stored, yet the error's tables are " + e.err().tables());
                } else {
                    assertEquals(10, server.rowCount("good"));
                }
                w.write(schema("good"), "later", 1.0, 1_700_000_000_000L);
                w.flushOrThrow(WAIT);
                assertTrue(server.rows("good").stream().anyMatch(r -> "later".equals(r.get("host"))));
            }
        }
    }
}
