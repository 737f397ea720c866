package dev.sluice.spark.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spark.LocalSpark;
import dev.sluice.testkit.GreptimeTestServer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.util.QueryExecutionListener;
import org.junit.jupiter.api.Test;

/**
 * Spark shows a write's plan, options included, in its UI, its event log and to every query listener; it hides an
 * option's value only when the option's name or value looks like a secret. A password written inside option
 * 'connection' ({@code user:password@}) must not show there, as option 'password' does not.
 */
class APasswordInTheConnectionOptionNeverShowsInThePlanTest {
    private static final String SECRET = "Hunter2Secret";

    @Test
    void thePlanOfAWriteDoesNotShowTheStringsPassword() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().user("ingest", SECRET).start()) {
            SparkSession s = LocalSpark.session();
            AtomicReference<String> plan = new AtomicReference<>();
            CountDownLatch seen = new CountDownLatch(1);
            QueryExecutionListener listener = new QueryExecutionListener() {
                @Override
                public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
                    plan.set(qe.toString() + "\n" + qe.executedPlan().toString());
                    seen.countDown();
                }

                @Override
                public void onFailure(String funcName, QueryExecution qe, Exception exception) {
                    plan.set(qe.toString());
                    seen.countDown();
                }
            };
            s.listenerManager().register(listener);
            try {
                s.sql("SELECT 'a' AS host, 1.0D AS v, TIMESTAMP'2024-01-01 00:00:00' AS ts").write()
                        .format("greptimedb").option("connection", "greptimedb://ingest:" + SECRET + "@"
                                + server.endpoint() + "/public").option("httpEndpoint", "none")
                        .option("table", "guarded").option("tags", "host").mode("append").save();
                assertTrue(seen.await(60, TimeUnit.SECONDS), "the listener heard of the write");
            } finally {
                s.listenerManager().unregister(listener);
            }
            assertEquals(1, server.rowCount("guarded"));
            assertTrue(plan.get().contains("guarded") || plan.get().contains("greptimedb"), plan.get());
            assertFalse(plan.get().contains(SECRET), "the plan shows the password: " + plan.get());
        }
    }
}
