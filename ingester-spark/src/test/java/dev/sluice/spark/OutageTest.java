package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * GreptimeDB unreachable while the tasks write: the testkit stops listening before the job and listens again when
 * the first task has handed out all its rows (sent meanwhile to a server that is not there). The client retries,
 * the tasks commit, and every row is stored once.
 */
class OutageTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();
    static final AtomicBoolean RESUMED = new AtomicBoolean();

    @ParameterizedTest
    @ValueSource(strings = {"regular", "bulk"})
    void rowsWrittenWhileTheServerIsAwayAreStoredOnceItIsBack(String path, GreptimeTestServer server) {
        String table = "outage_" + path;
        LocalSpark.write(LocalSpark.session().range(0, 1).selectExpr("id", "0.0D AS v", "timestamp_micros(id) AS ts"),
                server, table, "append", "tags", "id");
        Dataset<Row> df = LocalSpark.session().range(0, 40_000, 1, 4).selectExpr("id",
                "CAST(id AS DOUBLE) * 2 AS v", "timestamp_micros(id) AS ts");
        RESUMED.set(false);
        server.stop();
        try {
            LocalSpark.write(df.mapPartitions(new ResumeAtFirstEnd(), Encoders.row(df.schema())), server, table,
                    "append", "writePath", path, "batchRows", "1000");
        } finally {
            server.resume();
        }
        assertTrue(RESUMED.get(), "the server was resumed by a task");
        Map<Object, Map<String, Object>> byId = LocalSpark.byKey(server.rows(table), "id");
        assertEquals(40_000, byId.size());
        for (long id = 0; id < 40_000; id++) {
            assertEquals(id * 2.0, byId.get(id).get("v"), "v of id " + id);
        }
    }

    /** Passes rows through; the first partition to run out of rows makes the testkit listen again. */
    static final class ResumeAtFirstEnd implements MapPartitionsFunction<Row, Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public Iterator<Row> call(Iterator<Row> it) {
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    boolean more = it.hasNext();
                    if (!more && RESUMED.compareAndSet(false, true)) {
                        TESTKIT.server().resume();
                    }
                    return more;
                }

                @Override
                public Row next() {
                    return it.next();
                }
            };
        }
    }
}
