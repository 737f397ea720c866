package dev.sluice.flink.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * import do: its hosts and database are the ones the rows reach, with the credentials of 'username' and
 * 'password'. A password inside the string is refused before the job runs, because Flink prints a table's options
 * in plain text, hiding only options named like a password.
 */
class TheSqlConnectorTakesTheClientsConnectionStringTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);

    private static StreamTableEnvironment tables() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
        return t;
    }

    @Test
    void rowsReachTheDatabaseTheStringNamesWithThePasswordOption() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().user("ingest", "s@cret").start()) {
            server.createDatabase("metrics");
            StreamTableEnvironment t = tables();
            t.executeSql("CREATE TABLE cpu (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY (host, ts) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'connection'='greptimedb://"
                    + server.endpoint() + "/metrics?compression=zstd', 'username'='ingest', 'password'='s@cret',"
                    + " 'http-endpoint'='none')");
            t.executeSql("INSERT INTO cpu VALUES ('a', 0.5, TIMESTAMP '2024-01-01 00:00:00')").await();
            assertEquals(1, server.rowCount("metrics", "cpu"));
        }
    }

    @Test
    void aPasswordInTheStringIsRefusedSayingWhereItGoes() {
        try (GreptimeTestServer server = GreptimeTestServer.builder().user("ingest", "s@cret").start()) {
            StreamTableEnvironment t = tables();
            t.executeSql("CREATE TABLE cpu2 (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY (host, ts) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'connection'='greptimedb://ingest:s%40cret@"
                    + server.endpoint() + "/public', 'http-endpoint'='none')");
            Exception e = assertThrows(Exception.class, () -> t.executeSql(
                    "INSERT INTO cpu2 VALUES ('a', 0.5, TIMESTAMP '2024-01-01 00:00:00')").await());
            Throwable ours = e;
            while (ours != null && (ours.getMessage() == null || !ours.getMessage().startsWith("table "))) {
                ours = ours.getCause();
            }
            assertTrue(ours != null, "a refusal naming the table: " + SqlJobs.messages(e));
            String msg = ours.getMessage();
            assertTrue(msg.contains("option 'connection' holds a password") && msg.contains("option 'password'"),
                    msg);
            assertFalse(msg.contains("s%40cret") || msg.contains("s@cret"), "our message shows no password: " + msg);
            assertEquals(0, server.rowCount("public", "cpu2"));
        }
    }

    @Test
    void orderedPerTableFalseInTheStringIsRefusedNamingTheKey() {
        try (GreptimeTestServer server = GreptimeTestServer.builder().start()) {
            StreamTableEnvironment t = tables();
            t.executeSql("CREATE TABLE cpu3 (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY (host, ts) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'connection'='greptimedb://"
                    + server.endpoint() + "/public?ordered_per_table=false', 'http-endpoint'='none')");
            Exception e = assertThrows(Exception.class, () -> t.executeSql(
                    "INSERT INTO cpu3 VALUES ('a', 0.5, TIMESTAMP '2024-01-01 00:00:00')").await());
            String messages = SqlJobs.messages(e);
            assertTrue(messages.contains("ordered_per_table") && messages.contains("option 'connection'"), messages);
            assertEquals(0, server.rowCount("public", "cpu3"));
        }
    }
}
