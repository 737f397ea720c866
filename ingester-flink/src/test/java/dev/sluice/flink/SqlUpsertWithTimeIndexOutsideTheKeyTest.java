package dev.sluice.flink;

import static dev.sluice.flink.SqlConnectorTest.with;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Flink primary key without the time index: GreptimeDB keys rows by tags and time index, so an update that moves
 * a key's time must remove the key's old row. The stored table equals the query's final result.
 */
class SqlUpsertWithTimeIndexOutsideTheKeyTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    /** key to "total@epochMillis", one entry per stored row (a key stored twice fails). */
    private static Map<String, String> stored(GreptimeTestServer server, String table, String value) {
        return server.rows(table).stream().collect(Collectors.toMap(r -> String.valueOf(r.get("k")),
                r -> r.get(value) + "@" + r.get("ts"), (a, b) -> {
                    throw new AssertionError("a key stored twice in " + table + ": " + a + " and " + b);
                }, TreeMap::new));
    }

    @Test
    void anAggregateWhoseMaxTimeMovesLeavesOneRowPerKeyWithTheFinalValues(GreptimeTestServer server)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
        int events = 20_000;
        int keys = 100;
        t.createTemporaryView("events", env.fromSequence(0, events - 1));
        t.executeSql("CREATE TABLE totals (k INT, total BIGINT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED)"
                + " WITH (" + with(server) + ")");
        t.executeSql("INSERT INTO totals SELECT k, SUM(v), MAX(ts) FROM (SELECT CAST(MOD(f0, " + keys + ") AS INT)"
                + " AS k, f0 AS v, CAST(TO_TIMESTAMP_LTZ(f0, 3) AS TIMESTAMP(3)) AS ts FROM events) GROUP BY k")
                .await();
        Map<String, String> expected = new TreeMap<>();
        for (int k = 0; k < keys; k++) {
            long sum = 0;
            for (long i = k; i < events; i += keys) {
                sum += i;
            }
            expected.put(String.valueOf(k), sum + "@" + (events - keys + k));
        }
        assertEquals(expected, stored(server, "totals", "total"));
    }

    @Test
    void aCdcStreamWhoseUpdatesMoveTheTimeLeavesOnlyTheLiveKeysAtTheirLastTime(GreptimeTestServer server)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        LocalDateTime t0 = LocalDateTime.of(2024, 1, 1, 0, 0);
        List<Row> changes = List.of(
                Row.ofKind(RowKind.UPDATE_AFTER, 1, "a1", t0),
                Row.ofKind(RowKind.UPDATE_AFTER, 1, "a2", t0.plusSeconds(1)),   // a moves on: its old row goes
                Row.ofKind(RowKind.UPDATE_AFTER, 2, "b1", t0),
                Row.ofKind(RowKind.UPDATE_AFTER, 2, "b2", t0.plusSeconds(2)),
                Row.ofKind(RowKind.DELETE, 2, null, null),                      // b leaves, both of its times
                Row.ofKind(RowKind.UPDATE_AFTER, 3, "c1", t0.plusSeconds(3)),
                Row.ofKind(RowKind.UPDATE_AFTER, 3, "c2", t0),                  // c moves back in time
                Row.ofKind(RowKind.UPDATE_AFTER, 3, "c3", t0.plusSeconds(5)));
        t.createTemporaryView("cdc", t.fromChangelogStream(env.fromData(Types.ROW_NAMED(new String[] {"k", "name", "ts"}, Types.INT, Types.STRING,
                        Types.LOCAL_DATE_TIME), changes.toArray(Row[]::new)), Schema.newBuilder()
                .column("k", "INT NOT NULL").column("name", "STRING").column("ts", "TIMESTAMP(3)")
                .primaryKey("k").build(), ChangelogMode.upsert()));
        t.executeSql("CREATE TABLE live (k INT, name STRING, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED) WITH ("
                + with(server) + ")");
        t.executeSql("INSERT INTO live SELECT * FROM cdc").await();
        long ms = t0.toInstant(ZoneOffset.UTC).toEpochMilli();
        assertEquals(Map.of("1", "a2@" + (ms + 1_000), "3", "c3@" + (ms + 5_000)), stored(server, "live", "name"));
    }
}
