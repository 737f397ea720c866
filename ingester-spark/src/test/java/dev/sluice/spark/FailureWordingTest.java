package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A write to an existing table that fails for good because GreptimeDB stays away tells a Spark user what Spark does next (task retries
 * up to spark.task.maxFailures) and names no option or behaviour of another engine.
 */
class FailureWordingTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @Test
    void aWriteThatFailsForGoodSaysWhatSparkDoesNext(GreptimeTestServer server) {
        LocalSpark.write(LocalSpark.session().range(0, 1).selectExpr("id", "timestamp_micros(id) AS ts"), server,
                "away", "append", "tags", "id");
        server.stop();
        Throwable e;
        try {
            e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().range(0, 10, 1, 1)
                            .selectExpr("id", "timestamp_micros(id) AS ts"), server, "away", "append",
                    "retryTimeout", "1s", "requestTimeout", "1s"));
        } finally {
            server.resume();
        }
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        String msg = all.toString();
        assertTrue(msg.contains("spark.task.maxFailures"), msg);
        assertFalse(msg.contains("Flink") || msg.contains("restart-strategy") || msg.contains("sink.retry.timeout"),
                msg);
    }
}
