package dev.sluice.flink.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.ZoneId;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SQL connector accepts the client's connection string ({@code 'connection'}), as the Kafka sink and the
 * import do: its hosts, database and credentials are the ones the rows reach.
 */
class TheSqlConnectorTakesTheClientsConnectionStringTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);

    @Test
    void rowsReachTheDatabaseTheStringNamesWithItsCredentials() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().user("ingest", "s@cret").start()) {
            server.createDatabase("metrics");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            StreamTableEnvironment t = StreamTableEnvironment.create(env);
            t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
            t.executeSql("CREATE TABLE cpu (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY (host) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'connection'='greptimedb://ingest:s%40cret@"
                    + server.endpoint() + "/metrics?compression=zstd', 'http-endpoint'='none')");
            t.executeSql("INSERT INTO cpu VALUES ('a', 0.5, TIMESTAMP '2024-01-01 00:00:00')").await();
            assertEquals(1, server.rowCount("metrics", "cpu"));
        }
    }
}
