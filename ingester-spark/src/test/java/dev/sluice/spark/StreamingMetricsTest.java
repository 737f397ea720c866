package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.StatusCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.execution.streaming.runtime.StreamingQueryWrapper;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Structured Streaming micro-batch reports the write's Spark SQL metrics (rows, bytes, batches, retries,
 * failures) with their values after its last acknowledgement, as a batch write does.
 */
class StreamingMetricsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();
    static final int ROWS = 5_000;

    @Test
    void aMicroBatchReportsRowsBytesBatchesRetriesAndFailuresAsSparkSqlMetrics(GreptimeTestServer server,
            @TempDir Path dir) throws Exception {
        Path in = Files.createDirectories(dir.resolve("in"));
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < ROWS; i++) {
            lines.append("{\"device\":\"d").append(i % 5).append("\",\"ts\":\"2024-01-01T00:00:00.")
                    .append(String.format("%06d", i)).append("Z\"}\n");
        }
        Files.writeString(in.resolve("a.json"), lines);
        // The table exists before the measured micro-batch, so that its first request is a batch of rows.
        LocalSpark.write(LocalSpark.session().range(0, 1).selectExpr("'d0' AS device",
                "timestamp_micros(1704067200000000) AS ts"), server, "streamed", "append", "tags", "device");
        server.faults().failNext(1, StatusCode.RateLimited, "slow down");
        try {
            StreamingQuery q = LocalSpark.session().readStream().schema(StructType.fromDDL("device STRING, ts TIMESTAMP"))
                    .json(in.toString()).repartition(2).writeStream().format("greptimedb")
                    .option("endpoints", server.endpoint()).option("httpEndpoint", server.httpEndpoint())
                    .option("table", "streamed").option("batchRows", "500")
                    .option("checkpointLocation", dir.resolve("checkpoint").toString())
                    .trigger(Trigger.AvailableNow()).start();
            assertTrue(q.awaitTermination(120_000), "the query ended");
            if (q.exception().isDefined()) {
                throw q.exception().get();
            }
            Map<String, Long> m = new HashMap<>();
            LocalSpark.collectMetrics(((StreamingQueryWrapper) q).streamingQuery().lastExecution().executedPlan(), m);

            assertEquals(ROWS, server.rowCount("streamed"), "rows stored");
            assertEquals(server.rowCount("streamed"), m.get("greptimeRowsWritten"), m.toString());
            assertTrue(m.get("greptimeBatches") >= ROWS / 500, m.toString());
            assertTrue(m.get("greptimeBytesWritten") > 0, m.toString());
            assertEquals(1L, m.get("greptimeRetries"), m.toString());
            assertEquals(0L, m.get("greptimeFailures"), m.toString());
        } finally {
            server.faults().reset();
        }
    }
}
