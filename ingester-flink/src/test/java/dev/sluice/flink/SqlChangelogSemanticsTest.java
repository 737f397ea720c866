package dev.sluice.flink;

import static dev.sluice.flink.SqlConnectorTest.with;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.LocalDateTime;
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

/** The SQL sink's changelog handling: upserts, deletes and their order, on both write paths. */
class SqlChangelogSemanticsTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    /**
     * A GROUP BY ... HAVING result: a key whose count passes the bound leaves the result. Flink's planner sends this
     * sink I/UB/UA for such a query (EXPLAIN ... CHANGELOG_MODE shows the sink's input as [I,UB,UA]): the key's last
     * message is an UPDATE_BEFORE whose UPDATE_AFTER the HAVING filter dropped, so it is the key's removal.
     */
    @Test
    void anUpsertAggregateWithHavingDeletesTheKeysThatDropOut(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        StringBuilder values = new StringBuilder();
        Map<String, Long> counts = new TreeMap<>();
        Map<String, Long> sums = new TreeMap<>();
        int n = 0;
        for (int round = 0; round < 10; round++) {
            for (int k = round; k < 10; k++) { // key kK appears K + 1 times, interleaved with the other keys
                String key = "k" + k;
                values.append(n == 0 ? "" : ", ").append("('").append(key).append("', ").append(n).append(')');
                counts.merge(key, 1L, Long::sum);
                sums.merge(key, (long) n, Long::sum);
                n++;
            }
        }
        Map<String, Long> expected = new TreeMap<>();
        counts.forEach((k, c) -> {
            if (c < 4) {
                expected.put(k, sums.get(k));
            }
        });
        t.executeSql("CREATE TEMPORARY VIEW src AS SELECT * FROM (VALUES " + values + ") AS v(k, n)");
        t.executeSql("CREATE TABLE few (k STRING, total BIGINT, cnt BIGINT, ts TIMESTAMP(3),"
                + " PRIMARY KEY (k) NOT ENFORCED) WITH (" + with(server, "sink.batch.rows", "3") + ")");
        t.executeSql("INSERT INTO few SELECT k, SUM(CAST(n AS BIGINT)), COUNT(*), TIMESTAMP '2024-01-01 00:00:00'"
                + " FROM src GROUP BY k HAVING COUNT(*) < 4").await();
        Map<String, Long> stored = server.rows("few").stream()
                .collect(Collectors.toMap(r -> (String) r.get("k"), r -> (Long) r.get("total"), (a, b) -> {
                    throw new AssertionError("key stored twice");
                }, TreeMap::new));
        assertEquals(expected, stored);
    }

    private static Map<String, Object> runChangelog(GreptimeTestServer server, String table, String path, Row... rows)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        var changes = env.fromData(Types.ROW_NAMED(new String[] {"id", "name", "ts"}, Types.STRING, Types.STRING,
                Types.LOCAL_DATE_TIME), rows);
        t.createTemporaryView("cdc_" + table, t.fromChangelogStream(changes, Schema.newBuilder()
                .column("id", "STRING NOT NULL").column("name", "STRING").column("ts", "TIMESTAMP(3) NOT NULL")
                .primaryKey("id", "ts").build(), ChangelogMode.all()));
        t.executeSql("CREATE TABLE " + table + " (id STRING, name STRING, ts TIMESTAMP(3),"
                + " PRIMARY KEY (id, ts) NOT ENFORCED) WITH (" + with(server, "write.path", path,
                "sink.flush.interval", "1 h") + ")");
        t.executeSql("INSERT INTO " + table + " SELECT * FROM cdc_" + table).await();
        return server.rows(table).stream().collect(Collectors.toMap(r -> (String) r.get("id"), r -> r.get("name")));
    }

    private static Row[] insertDeleteSequence() {
        LocalDateTime ts = LocalDateTime.of(2024, 1, 1, 0, 0);
        return new Row[] {
            Row.ofKind(RowKind.INSERT, "a", "a1", ts),
            Row.ofKind(RowKind.DELETE, "a", "a1", ts),
            Row.ofKind(RowKind.INSERT, "a", "a2", ts),        // a is back after its delete
            Row.ofKind(RowKind.INSERT, "b", "b1", ts),
            Row.ofKind(RowKind.DELETE, "b", "b1", ts),
            Row.ofKind(RowKind.INSERT, "b", "b2", ts),
            Row.ofKind(RowKind.DELETE, "b", "b2", ts),        // b ends deleted
            Row.ofKind(RowKind.INSERT, "c", "c1", ts),
            Row.ofKind(RowKind.DELETE, "c", "not c1's name", ts), // a delete addresses the key only
            Row.ofKind(RowKind.UPDATE_AFTER, "d", "d1", ts),  // an update with no insert before it writes the row
            Row.ofKind(RowKind.UPDATE_BEFORE, "d", "d1", ts),
            Row.ofKind(RowKind.UPDATE_AFTER, "d", "d2", ts),
            Row.ofKind(RowKind.DELETE, "e", "e1", ts),        // a delete of a row never written changes nothing
            Row.ofKind(RowKind.INSERT, "e", "e1", ts),
        };
    }

    @Test
    void writesAndDeletesOfOneKeyLandInStreamOrderOnTheRegularPath(GreptimeTestServer server) throws Exception {
        assertEquals(Map.of("a", "a2", "d", "d2", "e", "e1"),
                runChangelog(server, "order_regular", "REGULAR", insertDeleteSequence()));
    }

    @Test
    void writesAndDeletesOfOneKeyLandInStreamOrderOnTheBulkPath(GreptimeTestServer server) throws Exception {
        assertEquals(Map.of("a", "a2", "d", "d2", "e", "e1"),
                runChangelog(server, "order_bulk", "BULK", insertDeleteSequence()));
    }

    /**
     * Many keys written, deleted and written again in interleaved rounds (deletes are held and sent together, and a
     * write waits only for held deletes of its own row): a key written, deleted and written again ends present with
     * its last value; a key written then deleted ends absent.
     */
    @Test
    void interleavedWritesAndDeletesOfManyKeysEndAsTheStreamLeftThem(GreptimeTestServer server) throws Exception {
        LocalDateTime ts = LocalDateTime.of(2024, 1, 1, 0, 0);
        java.util.List<Row> rows = new java.util.ArrayList<>();
        Map<String, Object> expected = new TreeMap<>();
        int keys = 300;
        for (int k = 0; k < keys; k++) {
            rows.add(Row.ofKind(RowKind.INSERT, "k" + k, "first", ts));
        }
        for (int k = 0; k < keys; k++) {
            rows.add(Row.ofKind(RowKind.DELETE, "k" + k, "first", ts));
            if (k % 2 == 0) {
                rows.add(Row.ofKind(RowKind.INSERT, "k" + k, "again", ts));
                expected.put("k" + k, "again");
            }
        }
        assertEquals(expected, new TreeMap<>(runChangelog(server, "interleaved", "REGULAR", rows.toArray(Row[]::new))));
    }

    /**
     * A filter on a CDC source: an update that leaves the filter reaches the sink as an UPDATE_BEFORE without its
     * UPDATE_AFTER (the planner gives this sink [I,UB,UA,D]), so the key leaves the result.
     */
    @Test
    void aCdcRowUpdatedOutOfAFilterLeavesTheTable(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        LocalDateTime ts = LocalDateTime.of(2024, 1, 1, 0, 0);
        var changes = env.fromData(Types.ROW_NAMED(new String[] {"id", "name", "ts"}, Types.STRING, Types.STRING,
                        Types.LOCAL_DATE_TIME),
                Row.ofKind(RowKind.INSERT, "1", "alice", ts),
                Row.ofKind(RowKind.INSERT, "2", "bob", ts),
                Row.ofKind(RowKind.UPDATE_BEFORE, "1", "alice", ts),
                Row.ofKind(RowKind.UPDATE_AFTER, "1", "hidden", ts),
                Row.ofKind(RowKind.UPDATE_BEFORE, "2", "bob", ts),
                Row.ofKind(RowKind.UPDATE_AFTER, "2", "bobby", ts));
        t.createTemporaryView("cdc_filtered", t.fromChangelogStream(changes, Schema.newBuilder()
                .column("id", "STRING NOT NULL").column("name", "STRING").column("ts", "TIMESTAMP(3) NOT NULL")
                .primaryKey("id", "ts").build(), ChangelogMode.all()));
        t.executeSql("CREATE TABLE visible (id STRING, name STRING, ts TIMESTAMP(3), PRIMARY KEY (id, ts) NOT ENFORCED)"
                + " WITH (" + with(server) + ")");
        t.executeSql("INSERT INTO visible SELECT * FROM cdc_filtered WHERE name <> 'hidden'").await();
        Map<String, Object> names = server.rows("visible").stream()
                .collect(Collectors.toMap(r -> (String) r.get("id"), r -> r.get("name")));
        assertEquals(Map.of("2", "bobby"), names);
    }

    @Test
    void anUpsertAggregateLandsAsItsFinalStateOnTheBulkPath(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        StringBuilder values = new StringBuilder();
        Map<String, Long> expected = new TreeMap<>();
        for (int i = 0; i < 400; i++) {
            String k = "k" + (i % 5);
            values.append(i == 0 ? "" : ", ").append("('").append(k).append("', ").append(i).append(')');
            expected.merge(k, (long) i, Long::sum);
        }
        t.executeSql("CREATE TEMPORARY VIEW src_bulk AS SELECT * FROM (VALUES " + values + ") AS v(k, n)");
        t.executeSql("CREATE TABLE totals_bulk (k STRING, total BIGINT, ts TIMESTAMP(3),"
                + " PRIMARY KEY (k) NOT ENFORCED) WITH (" + with(server, "write.path", "BULK", "sink.batch.rows", "7")
                + ")");
        t.executeSql("INSERT INTO totals_bulk SELECT k, SUM(CAST(n AS BIGINT)), TIMESTAMP '2024-01-01 00:00:00'"
                + " FROM src_bulk GROUP BY k").await();
        Map<String, Long> stored = server.rows("totals_bulk").stream()
                .collect(Collectors.toMap(r -> (String) r.get("k"), r -> (Long) r.get("total"), (a, b) -> {
                    throw new AssertionError("key stored twice");
                }, TreeMap::new));
        assertEquals(expected, stored);
    }

    /**
     * An upsert source whose deletes carry only the key (Flink 2.3's ChangelogMode.upsert()): the README lets the
     * time index stay out of the key when it is constant per key, so a delete must still find the row.
     */
    @Test
    void aKeyOnlyDeleteFromAnUpsertSourceRemovesTheRowWhoseTimeIndexIsOutsideTheKey(GreptimeTestServer server)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        LocalDateTime ts = LocalDateTime.of(2024, 1, 1, 0, 0);
        var changes = env.fromData(Types.ROW_NAMED(new String[] {"id", "name", "ts"}, Types.STRING, Types.STRING,
                        Types.LOCAL_DATE_TIME),
                Row.ofKind(RowKind.INSERT, "1", "alice", ts),
                Row.ofKind(RowKind.INSERT, "2", "bob", ts),
                Row.ofKind(RowKind.DELETE, "1", null, null));
        t.createTemporaryView("upsert_src", t.fromChangelogStream(changes, Schema.newBuilder()
                .column("id", "STRING NOT NULL").column("name", "STRING").column("ts", "TIMESTAMP(3)")
                .primaryKey("id").build(), ChangelogMode.upsert()));
        t.executeSql("CREATE TABLE by_id (id STRING, name STRING, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH (" + with(server) + ")");
        t.executeSql("INSERT INTO by_id SELECT * FROM upsert_src").await();
        Map<String, Object> names = server.rows("by_id").stream()
                .collect(Collectors.toMap(r -> (String) r.get("id"), r -> r.get("name")));
        assertEquals(Map.of("2", "bob"), names);
    }
}
