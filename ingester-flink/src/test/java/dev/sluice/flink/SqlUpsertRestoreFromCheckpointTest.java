package dev.sluice.flink;

import static dev.sluice.flink.SqlConnectorTest.with;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An upsert SQL job that fails after a checkpoint and restarts from it stores the final aggregate. */
class SqlUpsertRestoreFromCheckpointTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    @Test
    void anAggregateRestoredFromACheckpointLandsAsItsFinalState(GreptimeTestServer server) throws Exception {
        FlinkJobs.FailOnceAfterCheckpoint.FIRED.set(0);
        int rows = 60_000;
        StreamExecutionEnvironment env = FlinkJobs.env(2, 3);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().set("execution.checkpointing.interval", "1 s");
        t.executeSql("CREATE TABLE gen_r (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='" + rows + "',"
                + " 'rows-per-second'='15000', 'fields.id.kind'='sequence', 'fields.id.start'='0',"
                + " 'fields.id.end'='" + (rows - 1) + "')");
        DataStream<Row> failing = t.toDataStream(t.from("gen_r"))
                .map(new FlinkJobs.FailOnceAfterCheckpoint<Row>())
                .returns(org.apache.flink.api.common.typeinfo.Types.ROW_NAMED(new String[] {"id"},
                        org.apache.flink.api.common.typeinfo.Types.LONG));
        Table src = t.fromDataStream(failing);
        t.createTemporaryView("failing_src", src);
        t.executeSql("CREATE TABLE restored_totals (k BIGINT, total BIGINT, cnt BIGINT, ts TIMESTAMP(3),"
                + " PRIMARY KEY (k) NOT ENFORCED) WITH (" + with(server, "sink.batch.rows", "500") + ")");
        t.executeSql("INSERT INTO restored_totals SELECT id % 97, SUM(id), COUNT(*), TIMESTAMP '2024-01-01 00:00:00'"
                + " FROM failing_src GROUP BY id % 97").await();
        assertEquals(1, FlinkJobs.FailOnceAfterCheckpoint.FIRED.get(), "the injected failure fired");
        Map<Long, Long> expected = new TreeMap<>();
        Map<Long, Long> counts = new TreeMap<>();
        for (long id = 0; id < rows; id++) {
            expected.merge(id % 97, id, Long::sum);
            counts.merge(id % 97, 1L, Long::sum);
        }
        Map<Long, Long> stored = server.rows("restored_totals").stream()
                .collect(Collectors.toMap(r -> (Long) r.get("k"), r -> (Long) r.get("total"), (a, b) -> {
                    throw new AssertionError("key stored twice");
                }, TreeMap::new));
        assertEquals(expected, stored);
        Map<Long, Long> storedCounts = server.rows("restored_totals").stream()
                .collect(Collectors.toMap(r -> (Long) r.get("k"), r -> (Long) r.get("cnt"), (a, b) -> a, TreeMap::new));
        assertEquals(counts, storedCounts);
    }
}
