package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A batch write whose task fails once after part of its partition was written: Spark runs the task again, and the
 * table holds every row once, with its values (GreptimeDB keeps the last write of tags and time index).
 */
class RetriedTaskDeliveryTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();
    /**
     * Rows of the job, in four partitions of ten batches each ({@link #BATCH_ROWS}). What the test proves does not
     * grow with the row count: a task sends several batches, fails in its partition's middle after some of them are
     * stored (the task waits for that, see {@link FailOnce}), and its second attempt writes the stored keys again
     * beside keys it writes for the first time. 40,000 rows cross those boundaries; {@code -Dsluice.spark.rows=1000000}
     * runs the same job at a million rows.
     */
    static final int ROWS = Integer.getInteger("sluice.spark.rows", 40_000);
    static final int PARTITIONS = 4;
    static final int BATCH_ROWS = ROWS / PARTITIONS / 10;
    /** Rows of the failing partition stored before its first attempt fails: three batches. */
    static final int STORED_BEFORE_FAILURE = 3 * BATCH_ROWS;
    static final long BASE_MICROS = 1_704_067_200_000_000L;
    static final AtomicInteger FAILURES = new AtomicInteger();

    @ParameterizedTest
    @ValueSource(strings = {"regular", "bulk"})
    void aTaskRetriedAfterAPartialWriteLeavesEveryRowOnce(String path, GreptimeTestServer server) {
        FAILURES.set(0);
        String table = "retried_" + path;
        Dataset<Row> df = LocalSpark.session().range(0, ROWS, 1, PARTITIONS).selectExpr("id",
                "concat('host-', id % 50) AS host", "CAST(id AS DOUBLE) * 0.5 AS v", "timestamp_micros(" + BASE_MICROS + " + id) AS ts");
        int failAfter = ROWS / PARTITIONS * 3 / 5;
        Dataset<Row> failingOnce = df.mapPartitions(new FailOnce(table, failAfter), Encoders.row(df.schema()));

        LocalSpark.write(failingOnce, server, table, "append", "tags", "host", "writePath", path, "batchRows",
                String.valueOf(BATCH_ROWS));

        assertEquals(1, FAILURES.get(), "the injected failure happened once");
        TableSchema s = server.schema(table);
        assertEquals(SemanticType.Tag, s.column(s.indexOf("host")).semanticType());
        assertEquals("ts", s.column(s.timestampIndex()).name());
        List<Map<String, Object>> rows = server.rows(table);
        assertEquals(ROWS, rows.size(), "rows stored");
        Map<Object, Map<String, Object>> byId = LocalSpark.byKey(rows, "id");
        for (long id = 0; id < ROWS; id++) {
            Map<String, Object> r = byId.get(id);
            assertEquals("host-" + id % 50, r.get("host"), "host of id " + id);
            assertEquals(id * 0.5, r.get("v"), "v of id " + id);
            assertEquals(BASE_MICROS + id, r.get("ts"), "ts of id " + id);
        }
    }

    /**
     * Fails the first attempt of partition 1 after it handed out some of its rows, once the testkit has stored
     * {@link #STORED_BEFORE_FAILURE} of that partition's rows (it waits for each request the testkit records).
     */
    record FailOnce(String table, int failAfter) implements MapPartitionsFunction<Row, Row> {
        @Override
        public Iterator<Row> call(Iterator<Row> it) {
            return new Iterator<>() {
                private int taken;

                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public Row next() {
                    TaskContext tc = TaskContext.get();
                    if (++taken == failAfter && tc.partitionId() == 1 && tc.attemptNumber() == 0) {
                        awaitStored();
                        FAILURES.incrementAndGet();
                        throw new IllegalStateException("injected failure after " + failAfter + " rows");
                    }
                    return it.next();
                }
            };
        }

        /** Waits until the testkit stored {@link #STORED_BEFORE_FAILURE} rows of partition 1 (ids of its range). */
        private void awaitStored() {
            GreptimeTestServer server = TESTKIT.server();
            long from = ROWS / PARTITIONS;
            long until = 2L * ROWS / PARTITIONS;
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            try {
                while (server.rows(table).stream().map(r -> (Long) r.get("id"))
                        .filter(id -> id >= from && id < until).count() < STORED_BEFORE_FAILURE) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IllegalStateException("the testkit did not store " + STORED_BEFORE_FAILURE
                                + " rows of partition 1 within 2 minutes");
                    }
                    server.takeRequest(Duration.ofNanos(left)); // the next request the testkit records
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for stored rows", e);
            }
        }
    }
}
