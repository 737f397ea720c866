package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.StatusCode;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.util.QueryExecutionListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The write's Spark SQL metrics agree with what the testkit stored and answered. */
class CustomMetricsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @Test
    void theWriteReportsRowsBatchesAndRetriesAsSparkSqlMetrics(GreptimeTestServer server) throws Exception {
        CompletableFuture<Map<String, Long>> metrics = new CompletableFuture<>();
        QueryExecutionListener listener = new QueryExecutionListener() {
            @Override
            public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
                Map<String, Long> found = new HashMap<>();
                LocalSpark.collectMetrics(qe.executedPlan(), found);
                if (Long.valueOf(12_345L).equals(found.get("numOutputRows"))) { // the measured write, not the first
                    metrics.complete(found);
                }
            }

            @Override
            public void onFailure(String funcName, QueryExecution qe, Exception exception) {
                metrics.completeExceptionally(exception);
            }
        };
        // The table exists before the measured write, so that its first request is a batch of rows.
        LocalSpark.write(LocalSpark.session().range(0, 1).selectExpr("id", "timestamp_micros(id) AS ts"), server,
                "measured", "append", "tags", "id");
        LocalSpark.session().listenerManager().register(listener);
        try {
            server.faults().failNext(1, StatusCode.RateLimited, "slow down");
            LocalSpark.write(LocalSpark.session().range(0, 12_345, 1, 2).selectExpr("id",
                    "timestamp_micros(id) AS ts"), server, "measured", "append", "batchRows", "1000");
            Map<String, Long> m = metrics.get(60, TimeUnit.SECONDS);
            assertEquals(server.rowCount("measured"), m.get("greptimeRowsWritten"), m.toString());
            assertEquals(12_345L, m.get("greptimeRowsWritten"));
            assertTrue(m.get("greptimeBatches") >= 13, m.toString());
            assertTrue(m.get("greptimeBytesWritten") > 0, m.toString());
            assertEquals(1L, m.get("greptimeRetries"), m.toString());
            assertEquals(0L, m.get("greptimeFailures"), m.toString());
        } finally {
            LocalSpark.session().listenerManager().unregister(listener);
            server.faults().reset();
        }
    }
}
