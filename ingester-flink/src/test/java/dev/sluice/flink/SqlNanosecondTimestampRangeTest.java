package dev.sluice.flink;

import static dev.sluice.flink.SqlConnectorTest.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TIMESTAMP(7..9) is written as int64 nanoseconds since 1970: 1677-09-21 00:12:43.145224192 to
 * 2262-04-11 23:47:16.854775807 fit, one nanosecond beyond either does not, and such a value fails the job naming
 * table, column, element and the range.
 */
class SqlNanosecondTimestampRangeTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    private static void create(StreamTableEnvironment t, GreptimeTestServer server, String table) {
        t.executeSql("CREATE TABLE " + table + " (k STRING, ns TIMESTAMP(9), ts TIMESTAMP(3),"
                + " PRIMARY KEY (k, ts) NOT ENFORCED) WITH (" + with(server, "time-index", "ts") + ")");
    }

    @Test
    void bothEndsOfTheInt64NanosecondRangeAreStoredExactly(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment t = SqlTypeMappingEdgeValuesTest.env("UTC");
        create(t, server, "ns_edges");
        t.executeSql("INSERT INTO ns_edges VALUES"
                + " ('min', TIMESTAMP '1677-09-21 00:12:43.145224192', TIMESTAMP '2024-01-01 00:00:00'),"
                + " ('max', TIMESTAMP '2262-04-11 23:47:16.854775807', TIMESTAMP '2024-01-01 00:00:00')").await();
        Map<Object, Object> stored = server.rows("ns_edges").stream()
                .collect(Collectors.toMap(r -> r.get("k"), r -> r.get("ns")));
        assertEquals(Map.of("min", Long.MIN_VALUE, "max", Long.MAX_VALUE), stored);
    }

    private static void assertRefusedNamingTheRange(GreptimeTestServer server, String table, String value) {
        StreamTableEnvironment t = SqlTypeMappingEdgeValuesTest.env("UTC");
        create(t, server, table);
        Exception e = assertThrows(Exception.class, () -> t.executeSql("INSERT INTO " + table + " VALUES"
                + " ('bad', TIMESTAMP '" + value + "', TIMESTAMP '2024-01-01 00:00:00')").await());
        StringBuilder all = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) {
            all.append(c.getMessage()).append('\n');
        }
        String m = all.toString();
        assertTrue(m.contains("table '" + table + "'") && m.contains("column 'ns'") && m.contains("element 1")
                && m.contains("1677-09-21T00:12:43.145224192Z") && m.contains("2262-04-11T23:47:16.854775807Z"),
                "the failure names table, column, element and the range: " + m);
    }

    @Test
    void oneNanosecondAfterTheRangeFailsTheJobNamingTableColumnElementAndRange(GreptimeTestServer server) {
        assertRefusedNamingTheRange(server, "ns_after", "2262-04-11 23:47:16.854775808");
    }

    @Test
    void theYear2300FailsTheJobNamingTableColumnElementAndRange(GreptimeTestServer server) {
        assertRefusedNamingTheRange(server, "ns_2300", "2300-01-01 00:00:00");
    }

    @Test
    void oneNanosecondBeforeTheRangeFailsTheJobNamingTableColumnElementAndRange(GreptimeTestServer server) {
        assertRefusedNamingTheRange(server, "ns_before", "1677-09-21 00:12:43.145224191");
    }
}
