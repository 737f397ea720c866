package dev.sluice.flink.timeouts;

import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * A changelog's deletes that the server never answers fail the job saying so, as a silent server's inserts do: no
 * answer within the request timeout from the endpoint, the table, and what the job does next (it stays failed
 * without restarts); never a refusal the server did not make.
 */
class DeletesToASilentServerSayNoAnswerCameTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();
    /** The server the stream's first element turns silent (the sink's start still gets its answers). */
    static volatile GreptimeTestServer server;

    @Test
    void aSilentServerToDeletesIsNoAnswerFromItsEndpoint(GreptimeTestServer s) {
        server = s;
        try {
            Configuration conf = new Configuration();
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(1);
            StreamTableEnvironment t = StreamTableEnvironment.create(env);
            DataStream<Row> deletes = env.fromSequence(0, 99).map(i -> {
                if (i == 0) {
                    server.faults().neverRespond(true);
                }
                return Row.ofKind(RowKind.DELETE, "h" + i, LocalDateTime.of(2024, 1, 1, 0, 0).plusSeconds(i));
            }).returns(Types.ROW_NAMED(new String[] {"host", "ts"}, Types.STRING, Types.LOCAL_DATE_TIME));
            t.createTemporaryView("deletes", t.fromChangelogStream(deletes, Schema.newBuilder()
                    .column("host", DataTypes.STRING().notNull()).column("ts", DataTypes.TIMESTAMP(9).notNull())
                    .primaryKey("host", "ts").build(), ChangelogMode.all()));
            t.executeSql("CREATE TABLE silent_del (host STRING, ts TIMESTAMP(9), PRIMARY KEY (host, ts) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + s.endpoint() + "',"
                    + " 'http-endpoint'='none', 'request-timeout'='1 s', 'sink.retry.max-attempts'='2',"
                    + " 'sink.retry.backoff'='10 ms', 'sink.retry.timeout'='3 s')");
            String msg = SqlJobs.messages(assertThrows(Exception.class, () -> t.executeSql(
                    "INSERT INTO silent_del SELECT host, ts FROM deletes").await()));
            assertTrue(msg.contains("no answer within 1 s from " + s.endpoint()), msg);
            assertTrue(msg.contains("silent_del"), msg);
            assertFalse(msg.contains("refused"), "a silent server refused nothing: " + msg);
            assertTrue(msg.contains("restart-strategy.type is none: the job stays failed"), msg);
        } finally {
            s.faults().neverRespond(false);
        }
    }
}
