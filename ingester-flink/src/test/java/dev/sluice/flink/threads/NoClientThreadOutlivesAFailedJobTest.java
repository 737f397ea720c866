package dev.sluice.flink.threads;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.StatusCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flink closes a job's class loader as soon as the job ends, failed or not: a thread the connector's client started
 * that is still alive then (a gRPC event loop, a timer, a sweeper) fails loading classes. After a job that the
 * server's refusal failed, and after one whose writers could not start (a rejected password), no such thread is
 * left, on either write path.
 */
class NoClientThreadOutlivesAFailedJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);

    private static StreamTableEnvironment env() {
        return SqlJobs.withoutRestarts(1);
    }

    /** A thread of the connector's client, or one running with a job's class loader as its context. */
    private static boolean startedForTheJob(Thread th) {
        String n = th.getName();
        if (n.startsWith("sluice-") || n.startsWith("grpc-")) {
            return true;
        }
        ThreadGroup group = th.getThreadGroup();
        if (group != null && group.getName().equals("Flink Task Threads")) {
            // Flink's own task threads (and the legacy source threads they start), which Flink ends after the job
            // in its own time; a client thread started from one inherits the group but carries a name caught above.
            return false;
        }
        ClassLoader ccl = th.getContextClassLoader();
        if (ccl == null) {
            return false;
        }
        for (ClassLoader l = ClassLoader.getSystemClassLoader(); l != null; l = l.getParent()) {
            if (l == ccl) {
                return false;
            }
        }
        return ccl.getClass().getName().contains("UserCodeClassLoader");
    }

    private static List<String> leftAlive() {
        List<String> left = new ArrayList<>();
        for (Thread th : Thread.getAllStackTraces().keySet()) {
            if (th.isAlive() && startedForTheJob(th)) {
                left.add(th.getName() + " (context class loader " + th.getContextClassLoader() + ")");
            }
        }
        return left;
    }

    private static void runFailing(GreptimeTestServer server, String table, String path, String extra) {
        StreamTableEnvironment t = env();
        t.executeSql("CREATE TABLE " + table + " (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY (host, ts) NOT"
                + " ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "', 'write.path'='"
                + path + "', 'http-endpoint'='none', 'sink.retry.max-attempts'='1'" + extra + ")");
        assertThrows(Exception.class, () -> t.executeSql("INSERT INTO " + table + " VALUES ('a', 0.5, TIMESTAMP"
                + " '2024-01-01 00:00:00'), ('poison', 1.5, TIMESTAMP '2024-01-01 00:00:01')").await());
    }

    @Test
    void aJobTheServerRefusedLeavesNoClientThreadOnEitherPath() {
        List<String> left = new ArrayList<>();
        for (String path : List.of("REGULAR", "BULK")) {
            try (GreptimeTestServer server = GreptimeTestServer.start()) {
                server.faults().refuseValue("host", "poison", StatusCode.InvalidArguments,
                        "Column host of table t cannot hold this value");
                server.faults().failBulkBatch(1, StatusCode.InvalidArguments, "Column host cannot hold this value");
                runFailing(server, "refused_" + path.toLowerCase(Locale.ROOT), path, "");
                for (String th : leftAlive()) {
                    left.add(path + ": " + th);
                }
            }
        }
        assertTrue(left.isEmpty(), "threads alive after the failed jobs ended: " + left);
    }

    @Test
    void aJobWhoseWritersCouldNotStartLeavesNoClientThreadOnEitherPath() {
        List<String> left = new ArrayList<>();
        for (String path : List.of("REGULAR", "BULK")) {
            try (GreptimeTestServer server = GreptimeTestServer.builder().user("admin", "secret").start()) {
                runFailing(server, "unauthorized_" + path.toLowerCase(Locale.ROOT), path,
                        ", 'username'='admin', 'password'='wrong'");
                for (String th : leftAlive()) {
                    left.add(path + ": " + th);
                }
            }
        }
        assertTrue(left.isEmpty(), "threads alive after the failed jobs ended: " + left);
    }
}
