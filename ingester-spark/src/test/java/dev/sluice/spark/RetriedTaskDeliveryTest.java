package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
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
    static final int ROWS = Integer.getInteger("sluice.spark.rows", 1_000_000);
    static final long BASE_MICROS = 1_704_067_200_000_000L;
    static final AtomicInteger FAILURES = new AtomicInteger();

    @ParameterizedTest
    @ValueSource(strings = {"regular", "bulk"})
    void aTaskRetriedAfterAPartialWriteLeavesEveryRowOnce(String path, GreptimeTestServer server) {
        FAILURES.set(0);
        String table = "retried_" + path;
        Dataset<Row> df = LocalSpark.session().range(0, ROWS, 1, 4).selectExpr("id",
                "concat('host-', id % 50) AS host", "CAST(id AS DOUBLE) * 0.5 AS v", "timestamp_micros(" + BASE_MICROS + " + id) AS ts");
        int failAfter = ROWS / 4 * 3 / 5;
        Dataset<Row> failingOnce = df.mapPartitions(new FailOnce(failAfter), Encoders.row(df.schema()));

        LocalSpark.write(failingOnce, server, table, "append", "tags", "host", "writePath", path);

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

    /** Fails the first attempt of partition 1 after it handed out some of its rows. */
    record FailOnce(int failAfter) implements MapPartitionsFunction<Row, Row> {
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
                        FAILURES.incrementAndGet();
                        throw new IllegalStateException("injected failure after " + failAfter + " rows");
                    }
                    return it.next();
                }
            };
        }
    }
}
