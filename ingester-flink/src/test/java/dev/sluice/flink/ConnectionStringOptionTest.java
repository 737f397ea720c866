package dev.sluice.flink;

import static dev.sluice.flink.SqlOptionsBehaviourTest.inserts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.testkit.RecordedRequest;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code connection} option (SQL) and {@code connection(...)} (DataStream) take the client's connection string:
 * its hosts, database and keys reach the writes, and a separate option that sets the same thing is refused, naming
 * both.
 */
class ConnectionStringOptionTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    private static String messages(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append(" | ");
        }
        return b.toString();
    }

    @Test
    void sqlTakesHostsDatabaseAndKeysFromTheConnectionString(GreptimeTestServer server) throws Exception {
        server.createDatabase("metrics");
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE by_string (host STRING, v DOUBLE, ts TIMESTAMP(3)) WITH ('connector'='greptimedb',"
                + " 'tags'='host', 'sink.parallelism'='1', 'http-endpoint'='none',"
                + " 'connection'='greptimedb://" + server.endpoint() + "/metrics?batch_rows=2&flush_interval=1h"
                + "&timezone=+08:00&hint.ttl=7d&compression=zstd')");
        t.executeSql("INSERT INTO by_string VALUES ('a', 1.0, TIMESTAMP '2024-01-01 00:00:00'),"
                + " ('b', 2.0, TIMESTAMP '2024-01-01 00:00:01'), ('c', 3.0, TIMESTAMP '2024-01-01 00:00:02'),"
                + " ('d', 4.0, TIMESTAMP '2024-01-01 00:00:03'), ('e', 5.0, TIMESTAMP '2024-01-01 00:00:04')").await();
        assertEquals(5, server.rowCount("metrics", "by_string"));
        assertEquals(0, server.rowCount("public", "by_string"));
        List<RecordedRequest> reqs = inserts(server, "by_string");
        assertTrue(reqs.size() >= 3 && reqs.stream().allMatch(r -> r.rows() <= 2), reqs.toString());
        for (RecordedRequest r : reqs) {
            assertEquals("metrics", r.database(), r.toString());
            assertEquals("+08:00", r.timezone(), r.toString());
            assertEquals("7d", r.hints().get("ttl"), r.toString());
        }
        assertTrue(server.tableOptions("metrics", "by_string").containsKey("ttl"));
    }

    @Test
    void sqlRefusesAnOptionTheConnectionStringSetsToo(GreptimeTestServer server) {
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE twice (host STRING, ts TIMESTAMP(3)) WITH ('connector'='greptimedb',"
                + " 'compression'='gzip', 'connection'='greptimedb://" + server.endpoint() + "/public?compression=zstd')");
        String msg = messages(assertThrows(Exception.class,
                () -> t.executeSql("INSERT INTO twice VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')")));
        assertTrue(msg.contains("option 'compression' is set, and option 'connection' sets it too (compression):"
                + " keep one of them"), msg);

        t.executeSql("CREATE TABLE hosts_twice (host STRING, ts TIMESTAMP(3)) WITH ('connector'='greptimedb',"
                + " 'endpoints'='" + server.endpoint() + "', 'connection'='greptimedb://" + server.endpoint() + "')");
        msg = messages(assertThrows(Exception.class,
                () -> t.executeSql("INSERT INTO hosts_twice VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')")));
        assertTrue(msg.contains("option 'endpoints' is set, and option 'connection' sets it too (its hosts)"), msg);
        assertEquals(0, server.rowCount("hosts_twice") + server.rowCount("twice"));
    }

    @Test
    void sqlWithNeitherEndpointsNorConnectionSaysWhichToGive() {
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE nowhere (host STRING, ts TIMESTAMP(3)) WITH ('connector'='greptimedb')");
        String msg = messages(assertThrows(Exception.class,
                () -> t.executeSql("INSERT INTO nowhere VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')")));
        assertTrue(msg.contains("option 'endpoints' (or 'connection') is required"), msg);
    }

    private static final TableSchema SEQ = TableSchema.newBuilder("by_builder").addTag("host", DataType.String)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void theDataStreamBuilderTakesTheConnectionString(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = FlinkJobs.env(1, 0);
        env.fromSequence(0, 8).returns(Types.LONG).sinkTo(GreptimeSink.<Long>builder()
                .connection("greptimedb://" + server.endpoint() + "/public?batch_rows=3&flush_interval=1h")
                .httpEndpoint("none")
                .table(SEQ, (i, row) -> row.setString(0, "h" + i).setLong(1, 1_000 + i)).build());
        env.execute("connection string");
        assertEquals(9, server.rowCount("by_builder"));
        List<RecordedRequest> reqs = inserts(server, "by_builder");
        assertTrue(reqs.size() >= 3 && reqs.stream().allMatch(r -> r.rows() <= 3), reqs.toString());
    }

    @Test
    void theDataStreamBuilderRefusesASetterTheConnectionStringSetsToo(GreptimeTestServer server) {
        GreptimeSink.Builder<Long> b = GreptimeSink.<Long>builder()
                .connection("greptimedb://" + server.endpoint() + "/public?batch_rows=3")
                .batch(10, 1 << 20).table(SEQ, (i, row) -> row.setString(0, "h" + i).setLong(1, i));
        String msg = assertThrows(IllegalArgumentException.class, b::build).getMessage();
        assertEquals("batch(...) is set, and connection(...) sets it too (batch_rows): keep one of them", msg);
        GreptimeSink.Builder<Long> h = GreptimeSink.<Long>builder()
                .connection("greptimedb://" + server.endpoint() + "/public?hint.ttl=7d").hint("ttl", "1d")
                .table(SEQ, (i, row) -> row.setString(0, "h" + i).setLong(1, i));
        msg = assertThrows(IllegalArgumentException.class, h::build).getMessage();
        assertTrue(msg.contains("hint 'ttl' is set by hint(...), and connection(...) sets it too (hint.ttl)"), msg);
    }
}
