package dev.sluice.flink.timestamps;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.LocalDateTime;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A changelog's DELETE whose TIMESTAMP(9) time index lies outside the int64 nanosecond range fails the job as an
 * insert of such a time does: naming the table, the column, the row and the representable range, never a bare
 * {@code ArithmeticException}.
 */
class AnOutOfRangeNanosecondDeleteNamesTableColumnRowAndRangeTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    @Test
    void aDeleteOfTheYear2300(GreptimeTestServer server) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().setLocalTimeZone(java.time.ZoneId.of("UTC"));
        DataStream<Row> changes = env.fromData(
                Row.ofKind(RowKind.INSERT, "good", LocalDateTime.of(2024, 1, 1, 0, 0)),
                Row.ofKind(RowKind.DELETE, "bad", LocalDateTime.of(2300, 1, 1, 0, 0)))
                .returns(Types.ROW_NAMED(new String[] {"k", "ts"}, Types.STRING, Types.LOCAL_DATE_TIME));
        t.createTemporaryView("changes", t.fromChangelogStream(changes, Schema.newBuilder()
                .column("k", DataTypes.STRING().notNull()).column("ts", DataTypes.TIMESTAMP(9).notNull())
                .primaryKey("k", "ts").build(), ChangelogMode.all()));
        t.executeSql("CREATE TABLE ns_delete (k STRING, ts TIMESTAMP(9), PRIMARY KEY (k, ts) NOT ENFORCED) WITH"
                + " ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "', 'http-endpoint'='none')");
        String m = SqlJobs.messages(assertThrows(Exception.class,
                () -> t.executeSql("INSERT INTO ns_delete SELECT k, ts FROM changes").await()));
        assertTrue(m.contains("ns_delete") && m.contains("ts") && m.contains("k=bad")
                && m.contains("1677-09-21T00:12:43.145224192Z") && m.contains("2262-04-11T23:47:16.854775807Z")
                && !m.contains("ArithmeticException"),
                "the failure names the table, the column, the deleted row (k=bad) and the range: " + m);
    }
}
