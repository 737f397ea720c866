package dev.sluice.flink.errors;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.StatusCode;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An InvalidArguments answer about the settings ("Failed to find schema": the database is gone) is a setup failure
 * in the client's classification, as the Kafka sink treats it: the Flink job fails without blaming an element as
 * the bad row, and stores nothing of the refused batch.
 */
class AMissingSchemaRefusalIsNotBlamedOnARowTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();
    static volatile GreptimeTestServer server;

    @Test
    void theJobFailsAsSetupNamingNoElement(GreptimeTestServer s) {
        server = s;
        try {
            Configuration conf = new Configuration();
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(1);
            StreamTableEnvironment t = StreamTableEnvironment.create(env);
            DataStream<Long> numbers = env.fromSequence(0, 9).map(i -> {
                if (i == 0) {
                    server.faults().failEvery(1, StatusCode.InvalidArguments,
                            "Failed to find schema, schema info: greptime.public");
                }
                return i;
            }).returns(Types.LONG);
            t.createTemporaryView("numbers", numbers);
            t.executeSql("CREATE TABLE gone (host STRING, v DOUBLE, ts TIMESTAMP_LTZ(3), PRIMARY KEY (host) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + s.endpoint() + "',"
                    + " 'http-endpoint'='none', 'time-index'='ts')");
            Exception e = assertThrows(Exception.class, () -> t.executeSql("INSERT INTO gone SELECT"
                    + " CONCAT('h', CAST(f0 AS STRING)), CAST(f0 AS DOUBLE), TO_TIMESTAMP_LTZ(f0, 3) FROM numbers")
                    .await());
            StringBuilder all = new StringBuilder();
            for (Throwable c = e; c != null; c = c.getCause()) {
                all.append(c.getMessage()).append(" | ");
            }
            String msg = all.toString();
            assertTrue(msg.contains("Failed to find schema"), msg);
            assertFalse(msg.contains("refused element"), "no element is to blame for a missing database: " + msg);
            assertTrue(s.rowCount("gone") == 0, "nothing stored");
        } finally {
            s.faults().reset();
        }
    }
}
