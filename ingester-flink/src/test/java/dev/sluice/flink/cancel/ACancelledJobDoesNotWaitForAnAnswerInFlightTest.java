package dev.sluice.flink.cancel;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A cancelled job gives up the writes it has in flight instead of waiting for their answers: with request and retry
 * timeouts of ten minutes and a write the server never answers, the job is cancelled while the server still holds
 * that write (well before Flink's task cancellation watchdog, three minutes by default, would fail the whole
 * TaskManager), on either write path.
 */
class ACancelledJobDoesNotWaitForAnAnswerInFlightTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);

    private static void cancelWithAWriteInFlight(String path) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER,
                    r -> r.kind().equals("insert") || r.kind().equals("bulk"));
            StreamTableEnvironment t = SqlJobs.withNumbers(1, Long.MAX_VALUE, () -> { });
            String table = "held_" + path.toLowerCase(Locale.ROOT);
            t.executeSql("CREATE TABLE " + table + " (host STRING, v DOUBLE, ts TIMESTAMP_LTZ(3)) WITH"
                    + " ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "', 'write.path'='" + path
                    + "', 'http-endpoint'='none', 'request-timeout'='10 min', 'sink.retry.timeout'='10 min')");
            TableResult r = t.executeSql("INSERT INTO " + table + " SELECT CONCAT('h', CAST(f0 AS STRING)),"
                    + " CAST(f0 AS DOUBLE), TO_TIMESTAMP_LTZ(f0, 3) FROM numbers");
            JobClient job = r.getJobClient().orElseThrow();
            server.faults().awaitHeld(1, Duration.ofSeconds(60));
            try {
                job.cancel().get(60, TimeUnit.SECONDS);
                // Within Flink's default task.cancellation.timeout (180 s), far inside the 10 min request timeout.
                assertThrows(java.util.concurrent.ExecutionException.class,
                        () -> job.getJobExecutionResult().get(150, TimeUnit.SECONDS),
                        "the cancelled job ended without waiting for the held write's answer");
                assertTrue(server.faults().heldCount() >= 1, "the write was still held when the job ended");
            } finally {
                server.faults().release();
            }
        }
    }

    @Test
    void onTheRegularPath() throws Exception {
        cancelWithAWriteInFlight("REGULAR");
    }

    @Test
    void onTheBulkPath() throws Exception {
        cancelWithAWriteInFlight("BULK");
    }
}
