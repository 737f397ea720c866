package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * GreptimeDB goes away in the middle of a batch job, after part of the rows are stored. Back within the delivery
 * deadline, the job finishes and every row is stored once with its values; away past the deadline, the job fails
 * with a message that names the endpoint and how long the rows were retried.
 */
class MidJobOutageTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();
    static final int ROWS = 100_000;
    /** Write requests answered before the outage starts: the outage begins when the next one arrives. */
    static final int ANSWERED_BEFORE_OUTAGE = 20;

    @ParameterizedTest
    @ValueSource(strings = {"regular", "bulk"})
    void aTenSecondOutageMidJobLosesNoRowAndTheJobFinishes(String path, GreptimeTestServer server) throws Exception {
        String table = "outage10_" + path;
        CompletableFuture<Void> job = startMidJobOutage(server, table, path);
        long storedBeforeOutage = server.rowCount(table);
        try {
            // The outage is a fixed window by definition (GreptimeDB away for 10 s): the wait ends at once if the
            // job ends, and the job must not end while the rows it still holds cannot be delivered.
            assertThrows(TimeoutException.class, () -> job.get(10, TimeUnit.SECONDS),
                    "the job ended while GreptimeDB was away");
        } finally {
            server.resume();
        }
        job.get(5, TimeUnit.MINUTES);

        Map<Object, Map<String, Object>> byId = LocalSpark.byKey(server.rows(table), "id");
        assertTrue(storedBeforeOutage > 0 && storedBeforeOutage < ROWS, "rows stored when the outage began: "
                + storedBeforeOutage);
        assertEquals(ROWS, byId.size(), "rows stored");
        for (long id = 0; id < ROWS; id++) {
            assertEquals(value(id), byId.get(id).get("v"), "v of id " + id);
            assertEquals(id, byId.get(id).get("ts"), "ts of id " + id);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"regular", "bulk"})
    void anOutagePastTheDeliveryDeadlineFailsTheJobNamingTheEndpointAndTheWait(String path, GreptimeTestServer server)
            throws Exception {
        String table = "outage_past_" + path;
        // A buffer of one batch: once a batch has failed for good, the task's next row finds no room, and the task
        // ends with that batch's failure instead of handing the rest of its partition to a client that cannot
        // deliver it. Every task attempt (Spark tries each up to three times) then fails within about one delivery
        // deadline, with the same message.
        CompletableFuture<Void> job = startMidJobOutage(server, table, path, "retryTimeout", "3s",
                "requestTimeout", "2s", "bufferRows", "1000");
        ExecutionException e;
        try {
            e = assertThrows(ExecutionException.class, () -> job.get(5, TimeUnit.MINUTES));
        } finally {
            server.resume();
        }
        String surfaced = e.getCause().getMessage();
        assertTrue(surfaced.contains(server.endpoint()), "names the endpoint: " + surfaced);
        assertTrue(surfaced.contains("retryTimeout = 3 s"), "names the wait: " + surfaced);
        long stored = server.rowCount(table);
        assertTrue(stored > 0 && stored < ROWS, "rows stored before the outage stay stored: " + stored);
    }

    /**
     * Starts a job writing {@link #ROWS} rows and returns when GreptimeDB has stopped listening in its middle: the
     * testkit holds the answer of the write request that arrives after {@link #ANSWERED_BEFORE_OUTAGE} others (its
     * rows are stored), then stops.
     */
    private static CompletableFuture<Void> startMidJobOutage(GreptimeTestServer server, String table, String path,
            String... options) throws Exception {
        LocalSpark.write(LocalSpark.session().range(0, 1).selectExpr("id", "0.0D AS v", "timestamp_micros(id) AS ts"),
                server, table, "append", "tags", "id");
        Dataset<Row> df = LocalSpark.session().range(0, ROWS, 1, 4).selectExpr("id",
                "CAST(id AS DOUBLE) * 1.5 + 0.25 AS v", "timestamp_micros(id) AS ts");
        AtomicInteger requests = new AtomicInteger();
        server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> requests.incrementAndGet() > ANSWERED_BEFORE_OUTAGE);
        String[] all = new String[options.length + 4];
        all[0] = "writePath";
        all[1] = path;
        all[2] = "batchRows";
        all[3] = "1000";
        System.arraycopy(options, 0, all, 4, options.length);
        CompletableFuture<Void> job = CompletableFuture.runAsync(
                () -> LocalSpark.write(df, server, table, "append", all));
        try {
            server.faults().awaitHeld(1, Duration.ofMinutes(2));
        } finally {
            server.stop(); // answers the held request first, then drops every connection
            server.faults().reset();
        }
        return job;
    }

    private static double value(long id) {
        return id * 1.5 + 0.25;
    }
}
