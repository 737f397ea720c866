package dev.sluice.flink;

import static dev.sluice.flink.SqlConnectorTest.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
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
 * A changelog's writes and deletes of each row (tags and time index) land in stream order, and deletes between writes
 * do not cost a flush and a delete request each: rows of other keys may be sent together, out of stream order, but
 * never a write and a delete of the same row.
 */
class SqlDeletesKeepStreamOrderWithoutAFlushPerDeleteTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    private static final LocalDateTime T0 = LocalDateTime.of(2024, 1, 1, 0, 0);

    /**
     * Random changelogs over many keys, each key written, deleted, updated and written again at a few times in any
     * interleaving: the stored rows are the rows left by applying the changelog in order, whatever the batch size.
     */
    @Test
    void aRandomChangelogOfManyKeysEndsAsApplyingItInOrder(GreptimeTestServer server) throws Exception {
        String[][] runs = {{"1", "3", "REGULAR"}, {"2", "50", "REGULAR"}, {"3", "10000", "REGULAR"},
            {"4", "20", "BULK"}};
        for (String[] run : runs) {
            Random random = new Random(Long.parseLong(run[0]));
            Map<String, String> state = new TreeMap<>(); // "id|time" -> name, the changelog applied in order
            List<Row> rows = new ArrayList<>();
            for (int i = 0; i < 6_000; i++) {
                String id = "k" + random.nextInt(150);
                int time = random.nextInt(3);
                String key = id + "|" + time;
                String name = "v" + i + "@" + time; // the time is in the name, so a stored row shows its time
                switch (random.nextInt(4)) {
                    case 0 -> {
                        rows.add(Row.ofKind(RowKind.INSERT, id, name, T0.plusSeconds(time)));
                        state.put(key, name);
                    }
                    case 1 -> {
                        rows.add(Row.ofKind(RowKind.DELETE, id, "any", T0.plusSeconds(time)));
                        state.remove(key);
                    }
                    case 2 -> { // an update of the row in place
                        rows.add(Row.ofKind(RowKind.UPDATE_BEFORE, id, state.getOrDefault(key, "none"),
                                T0.plusSeconds(time)));
                        rows.add(Row.ofKind(RowKind.UPDATE_AFTER, id, name, T0.plusSeconds(time)));
                        state.put(key, name);
                    }
                    default -> { // a row moved to another time: deleted, then written at the new time
                        int to = (time + 1 + random.nextInt(2)) % 3;
                        String moved = "v" + i + "@" + to;
                        rows.add(Row.ofKind(RowKind.DELETE, id, "old", T0.plusSeconds(time)));
                        rows.add(Row.ofKind(RowKind.INSERT, id, moved, T0.plusSeconds(to)));
                        state.remove(key);
                        state.put(id + "|" + to, moved);
                    }
                }
            }
            List<String> expected = new ArrayList<>();
            state.forEach((key, name) -> expected.add(key.substring(0, key.indexOf('|')) + " " + name));
            expected.sort(null);
            String table = "random_" + run[0];
            run(server, table, rows, "sink.batch.rows", run[1], "write.path", run[2], "sink.flush.interval", "50 ms",
                    "http-endpoint", "none");
            assertEquals(expected, stored(server, table), "changelog " + run[0] + " with batches of " + run[1]
                    + " rows on the " + run[2] + " path");
        }
    }

    /**
     * K keys written, then each deleted and written at a new time, then each deleted and written again at the same
     * time: 2K deletes, each between two writes, reach GreptimeDB in far fewer than 2K requests.
     */
    @Test
    void deletesBetweenWritesAreSentTogetherNotOneRoundTripEach(GreptimeTestServer server) throws Exception {
        int keys = 1_000;
        List<Row> rows = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            rows.add(Row.ofKind(RowKind.INSERT, "k" + k, "first", T0));
        }
        for (int k = 0; k < keys; k++) {
            rows.add(Row.ofKind(RowKind.DELETE, "k" + k, "first", T0));
            rows.add(Row.ofKind(RowKind.INSERT, "k" + k, "moved", T0.plusSeconds(1)));
        }
        for (int k = 0; k < keys; k++) {
            rows.add(Row.ofKind(RowKind.DELETE, "k" + k, "moved", T0.plusSeconds(1)));
            rows.add(Row.ofKind(RowKind.INSERT, "k" + k, "updated", T0.plusSeconds(1)));
            expected.add("k" + k + " updated");
        }
        expected.sort(null);
        server.clear();

        run(server, "round_trips", rows, "write.path", "REGULAR", "sink.flush.interval", "1 h",
                "http-endpoint", "none");

        assertEquals(expected, stored(server, "round_trips"));
        long writes = server.requests().stream().filter(r -> r.kind().equals("insert")).count();
        long deletes = server.requests().stream().filter(r -> r.kind().equals("delete")).count();
        assertTrue(writes + deletes < 2 * keys / 10, "2 x " + keys + " deletes between writes took " + writes
                + " write and " + deletes + " delete requests");
    }

    private static void run(GreptimeTestServer server, String table, List<Row> rows, String... options)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        var changes = env.fromData(Types.ROW_NAMED(new String[] {"id", "name", "ts"}, Types.STRING, Types.STRING,
                Types.LOCAL_DATE_TIME), rows.toArray(Row[]::new));
        t.createTemporaryView("cdc_" + table, t.fromChangelogStream(changes, Schema.newBuilder()
                .column("id", "STRING NOT NULL").column("name", "STRING").column("ts", "TIMESTAMP(3) NOT NULL")
                .primaryKey("id", "ts").build(), ChangelogMode.all()));
        t.executeSql("CREATE TABLE " + table + " (id STRING, name STRING, ts TIMESTAMP(3),"
                + " PRIMARY KEY (id, ts) NOT ENFORCED) WITH (" + with(server, options) + ")");
        t.executeSql("INSERT INTO " + table + " SELECT * FROM cdc_" + table).await();
    }

    /** The rows the testkit stores, as "id name", sorted. */
    private static List<String> stored(GreptimeTestServer server, String table) {
        List<String> rows = new ArrayList<>();
        if (server.tables().contains(table)) {
            for (Map<String, Object> r : server.rows(table)) {
                rows.add(r.get("id") + " " + r.get("name"));
            }
        }
        rows.sort(null);
        return rows;
    }
}
