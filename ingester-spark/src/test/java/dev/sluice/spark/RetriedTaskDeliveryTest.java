package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A batch write of 1,000,000 rows whose task fails once after part of its partition was written: Spark runs the
 * task again, and the table holds every row once, with its values (GreptimeDB keeps the last write of tags and time
 * index).
 */
class RetriedTaskDeliveryTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();
    /** Rows of the job, in four partitions of ten batches each ({@link #BATCH_ROWS}). */
    static final int ROWS = Integer.getInteger("sluice.spark.rows", 1_000_000);
    static final int PARTITIONS = 4;
    static final int BATCH_ROWS = ROWS / PARTITIONS / 10;
    /** Rows of the failing partition stored before its first attempt fails: three batches. */
    static final int STORED_BEFORE_FAILURE = 3 * BATCH_ROWS;
    /** Partition 1's ids are [ROWS / 4, ROWS / 2); its first attempt fails at this one, 60% into it. */
    static final long FAILING_ID = ROWS / PARTITIONS + ROWS / PARTITIONS * 3 / 5;
    static final long BASE_MICROS = 1_704_067_200_000_000L;
    static final AtomicInteger FAILURES = new AtomicInteger();
    static volatile String failingTable;

    @ParameterizedTest
    @ValueSource(strings = {"regular", "bulk"})
    void aTaskRetriedAfterAPartialWriteLeavesEveryRowOnce(String path, GreptimeTestServer server) {
        FAILURES.set(0);
        String table = "retried_" + path;
        failingTable = table;
        // The id passes through a function that, in partition 1's first attempt, waits until the testkit stored
        // three of that partition's batches and then fails the task: the rows before it were written, the rest not.
        UserDefinedFunction failOnce = functions.udf((UDF1<Long, Long>) RetriedTaskDeliveryTest::failOnce,
                DataTypes.LongType).asNondeterministic();
        Dataset<Row> df = LocalSpark.session().range(0, ROWS, 1, PARTITIONS)
                .select(failOnce.apply(functions.col("id")).as("id"))
                .selectExpr("id", "concat('host-', id % 50) AS host", "CAST(id AS DOUBLE) * 0.5 AS v",
                        "timestamp_micros(" + BASE_MICROS + " + id) AS ts");

        LocalSpark.write(df, server, table, "append", "tags", "host", "writePath", path, "batchRows",
                String.valueOf(BATCH_ROWS));

        assertEquals(1, FAILURES.get(), "the injected failure happened once");
        TableSchema s = server.schema(table);
        assertEquals(SemanticType.Tag, s.column(s.indexOf("host")).semanticType());
        assertEquals("ts", s.column(s.timestampIndex()).name());
        List<List<Object>> stored = server.columns(table, "id", "host", "v", "ts");
        List<Object> ids = stored.get(0);
        assertEquals(ROWS, ids.size(), "rows stored");
        boolean[] seen = new boolean[ROWS];
        for (int i = 0; i < ids.size(); i++) {
            long id = (Long) ids.get(i);
            if (id < 0 || id >= ROWS || seen[(int) id]) {
                fail("stored row " + i + " has id " + id + ", outside 0.." + (ROWS - 1) + " or stored before");
            }
            seen[(int) id] = true;
            expect("host", id, "host-" + id % 50, stored.get(1).get(i));
            expect("v", id, id * 0.5, stored.get(2).get(i));
            expect("ts", id, BASE_MICROS + id, stored.get(3).get(i));
        }
    }

    private static void expect(String column, long id, Object expected, Object stored) {
        if (!Objects.equals(expected, stored)) {
            fail(column + " of id " + id + ": expected " + expected + ", stored " + stored);
        }
    }

    /** The id, or the injected failure at {@link #FAILING_ID} in the first attempt of partition 1. */
    private static Long failOnce(Long id) {
        if (id == FAILING_ID) {
            TaskContext tc = TaskContext.get();
            if (tc.partitionId() == 1 && tc.attemptNumber() == 0) {
                awaitStored();
                FAILURES.incrementAndGet();
                throw new IllegalStateException("injected failure at id " + id);
            }
        }
        return id;
    }

    /** Waits until the testkit stored {@link #STORED_BEFORE_FAILURE} rows of partition 1 (ids of its range). */
    private static void awaitStored() {
        GreptimeTestServer server = TESTKIT.server();
        long from = ROWS / PARTITIONS;
        long until = 2L * ROWS / PARTITIONS;
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        try {
            while (server.columns(failingTable, "id").get(0).stream().mapToLong(id -> (Long) id)
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
