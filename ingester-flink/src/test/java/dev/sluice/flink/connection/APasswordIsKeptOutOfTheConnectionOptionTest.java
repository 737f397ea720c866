package dev.sluice.flink.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.ZoneId;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flink prints a table's options in plain text, so the SQL connector refuses a password inside option
 * 'connection' whatever characters the password holds, and the place its refusal sends the password to (the
 * system property {@value ConnectionConfig#PASSWORD_PROPERTY} of the planning process, with the user named in the
 * string) authenticates that user.
 */
class APasswordIsKeptOutOfTheConnectionOptionTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);

    private static StreamTableEnvironment tables() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
        return t;
    }

    private static void assertRefusedAsAPassword(String userInfo, String table) {
        StreamTableEnvironment t = tables();
        t.executeSql("CREATE TABLE " + table + " (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY (host) NOT"
                + " ENFORCED) WITH ('connector'='greptimedb', 'connection'='greptimedb://" + userInfo
                + "@127.0.0.1:4001/public', 'http-endpoint'='none')");
        Exception e = assertThrows(Exception.class, () -> t.explainSql(
                "INSERT INTO " + table + " VALUES ('a', 0.5, TIMESTAMP '2024-01-01 00:00:00')"),
                "a password in option 'connection' was accepted: " + userInfo);
        String all = SqlJobs.messages(e);
        assertTrue(all.contains("option 'connection' holds a password"), all);
    }

    @Test
    void aPasswordHoldingASlashIsRefusedAsAnyPasswordIs() {
        assertRefusedAsAPassword("ingest:pa/ssword", "slash_pw");
    }

    @Test
    void aPasswordHoldingAHashIsRefusedAsAnyPasswordIs() {
        assertRefusedAsAPassword("ingest:pa#ssword", "hash_pw");
    }

    @Test
    void thePasswordPropertyTheRefusalNamesAuthenticatesTheUserOfTheString() throws Exception {
        String before = System.getProperty(ConnectionConfig.PASSWORD_PROPERTY);
        try (GreptimeTestServer server = GreptimeTestServer.builder().user("ingest", "s@cret").start()) {
            System.setProperty(ConnectionConfig.PASSWORD_PROPERTY, "s@cret");
            StreamTableEnvironment t = tables();
            t.executeSql("CREATE TABLE cpu_env (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY (host, ts) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'connection'='greptimedb://ingest@"
                    + server.endpoint() + "/public', 'http-endpoint'='none')");
            t.executeSql("INSERT INTO cpu_env VALUES ('a', 0.5, TIMESTAMP '2024-01-01 00:00:00')").await();
            assertEquals(1, server.rowCount("public", "cpu_env"));
        } finally {
            if (before == null) {
                System.clearProperty(ConnectionConfig.PASSWORD_PROPERTY);
            } else {
                System.setProperty(ConnectionConfig.PASSWORD_PROPERTY, before);
            }
        }
    }
}
