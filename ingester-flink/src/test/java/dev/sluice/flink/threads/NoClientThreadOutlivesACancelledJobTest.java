package dev.sluice.flink.threads;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flink closes a job's class loader once the job ends, also when the job is cancelled (as the SQL client's STOP JOB
 * or a user's cancel does) while a write is in flight: by the time the job is cancelled, no thread the connector's
 * client started is left alive, on either write path.
 */
class NoClientThreadOutlivesACancelledJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);

    /** A thread of the connector's client (as the failed-job test tells them). */
    private static List<String> clientThreads() {
        List<String> left = new ArrayList<>();
        for (Thread th : Thread.getAllStackTraces().keySet()) {
            String n = th.getName();
            if (th.isAlive() && (n.startsWith("sluice-") || n.startsWith("grpc-"))) {
                left.add(n);
            }
        }
        return left;
    }

    @Test
    void aJobCancelledWithAWriteInFlightLeavesNoClientThreadOnEitherPath() throws Exception {
        List<String> left = new ArrayList<>();
        for (String path : List.of("REGULAR", "BULK")) {
            try (GreptimeTestServer server = GreptimeTestServer.start()) {
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER,
                        r -> r.kind().equals("insert") || r.kind().equals("bulk"));
                StreamTableEnvironment t = SqlJobs.withNumbers(1, Long.MAX_VALUE, () -> { });
                String table = "cancelled_" + path.toLowerCase(Locale.ROOT);
                t.executeSql("CREATE TABLE " + table + " (host STRING, v DOUBLE, ts TIMESTAMP_LTZ(3)) WITH"
                        + " ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "', 'write.path'='" + path
                        + "', 'http-endpoint'='none')");
                TableResult r = t.executeSql("INSERT INTO " + table + " SELECT CONCAT('h', CAST(f0 AS STRING)),"
                        + " CAST(f0 AS DOUBLE), TO_TIMESTAMP_LTZ(f0, 3) FROM numbers");
                JobClient job = r.getJobClient().orElseThrow();
                server.faults().awaitHeld(1, Duration.ofSeconds(60));
                job.cancel().get(60, TimeUnit.SECONDS);
                assertThrows(Exception.class, () -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS),
                        "the cancelled job ends without a result");
                for (String th : clientThreads()) {
                    left.add(path + ": " + th);
                }
                server.faults().release();
            }
        }
        assertTrue(left.isEmpty(), "client threads alive after the cancelled jobs ended: " + left);
    }
}
