package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The 'greptimedb' SQL connector on a MiniCluster, read back from the testkit. */
class SqlConnectorTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    static StreamTableEnvironment streaming() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        return StreamTableEnvironment.create(env);
    }

    static String with(GreptimeTestServer server, String... extra) {
        StringBuilder b = new StringBuilder("'connector'='greptimedb', 'endpoints'='" + server.endpoint() + "'");
        for (int i = 0; i < extra.length; i += 2) {
            b.append(", '").append(extra[i]).append("'='").append(extra[i + 1]).append('\'');
        }
        return b.toString();
    }

    @Test
    void insertsFromValuesWithTagsFromThePrimaryKey(GreptimeTestServer server) throws Exception {
        TableEnvironment t = streaming();
        t.executeSql("CREATE TABLE cpu (host STRING, region STRING, usage DOUBLE, ts TIMESTAMP(3),"
                + " PRIMARY KEY (host, region, ts) NOT ENFORCED) WITH (" + with(server, "ttl", "7d", "merge-mode", "last_non_null")
                + ")");
        t.executeSql("INSERT INTO cpu VALUES ('a', 'eu', 0.5, TIMESTAMP '2024-01-01 00:00:00'),"
                + " ('b', 'us', 1.5, TIMESTAMP '2024-01-01 00:00:01.250')").await();
        TableSchema s = server.schema("cpu");
        assertEquals(SemanticType.Tag, s.column(s.indexOf("host")).semanticType());
        assertEquals(SemanticType.Tag, s.column(s.indexOf("region")).semanticType());
        assertEquals(SemanticType.Field, s.column(s.indexOf("usage")).semanticType());
        assertEquals(DataType.TimestampMillisecond, s.column(s.timestampIndex()).dataType());
        Map<String, Map<String, Object>> byHost = byKey(server.rows("cpu"), "host");
        assertEquals(2, byHost.size());
        assertEquals(0.5, byHost.get("a").get("usage"));
        assertEquals(1_704_067_200_000L, byHost.get("a").get("ts"));
        assertEquals(1_704_067_201_250L, byHost.get("b").get("ts"));
        assertEquals("us", byHost.get("b").get("region"));
        Map<String, String> options = server.tableOptions("public", "cpu");
        assertTrue(options.containsKey("ttl") && "last_non_null".equals(options.get("merge_mode")), options.toString());
    }

    @Test
    void insertsFromDatagenIntoTheNamedTableWithTagsOption(GreptimeTestServer server) throws Exception {
        TableEnvironment t = streaming();
        t.executeSql("CREATE TABLE gen (id BIGINT, host STRING, ts TIMESTAMP_LTZ(3)) WITH ('connector'='datagen',"
                + " 'number-of-rows'='5000', 'fields.id.kind'='sequence', 'fields.id.start'='0', 'fields.id.end'='4999',"
                + " 'fields.host.length'='4')");
        t.executeSql("CREATE TABLE sink (id BIGINT, host STRING, ts TIMESTAMP_LTZ(3), v DOUBLE) WITH ("
                + with(server, "table-name", "gen_rows", "tags", "id", "sink.batch.rows", "700") + ")");
        t.executeSql("INSERT INTO sink SELECT id, host, TO_TIMESTAMP_LTZ(1704067200000 + id, 3), id * 0.25 FROM gen")
                .await();
        List<Map<String, Object>> rows = server.rows("gen_rows");
        assertEquals(5000, rows.size());
        for (Map<String, Object> r : rows) {
            long id = (Long) r.get("id");
            assertEquals(1_704_067_200_000L + id, r.get("ts"));
            assertEquals(id * 0.25, r.get("v"));
            assertEquals(4, ((String) r.get("host")).length());
        }
        assertEquals(SemanticType.Tag, server.schema("gen_rows").column(server.schema("gen_rows").indexOf("id"))
                .semanticType());
    }

    @Test
    void anUpsertStreamLandsAsTheFinalAggregate(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment t = streaming();
        StringBuilder values = new StringBuilder();
        Map<String, Long> expected = new TreeMap<>();
        for (int i = 0; i < 600; i++) {
            String k = "k" + (i % 7);
            values.append(i == 0 ? "" : ", ").append("('").append(k).append("', ").append(i).append(')');
            expected.merge(k, (long) i, Long::sum);
        }
        t.executeSql("CREATE TEMPORARY VIEW src AS SELECT * FROM (VALUES " + values + ") AS v(k, n)");
        t.executeSql("CREATE TABLE totals (k STRING, total BIGINT, cnt BIGINT, ts TIMESTAMP(3),"
                + " PRIMARY KEY (k) NOT ENFORCED) WITH (" + with(server) + ")");
        t.executeSql("INSERT INTO totals SELECT k, SUM(CAST(n AS BIGINT)), COUNT(*), TIMESTAMP '2024-01-01 00:00:00'"
                + " FROM src GROUP BY k").await();
        Map<String, Long> stored = server.rows("totals").stream()
                .collect(Collectors.toMap(r -> (String) r.get("k"), r -> (Long) r.get("total"), (a, b) -> {
                    throw new AssertionError("key stored twice");
                }, TreeMap::new));
        assertEquals(expected, stored);
        assertTrue(server.requests().size() > 1, "the aggregate reached the sink as several writes");
    }

    @Test
    void deletesFromAChangelogSourceRemoveRowsByTagsAndTimeIndex(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        java.time.LocalDateTime ts = java.time.LocalDateTime.of(2024, 1, 1, 0, 0);
        var changes = env.fromData(Types.ROW_NAMED(new String[] {"id", "name", "ts"}, Types.STRING, Types.STRING,
                        Types.LOCAL_DATE_TIME),
                Row.ofKind(RowKind.INSERT, "1", "alice", ts),
                Row.ofKind(RowKind.INSERT, "2", "bob", ts),
                Row.ofKind(RowKind.INSERT, "3", "carol", ts),
                Row.ofKind(RowKind.UPDATE_BEFORE, "2", "bob", ts),
                Row.ofKind(RowKind.UPDATE_AFTER, "2", "bobby", ts),
                Row.ofKind(RowKind.DELETE, "1", "alice", ts),
                Row.ofKind(RowKind.INSERT, "4", "dan", ts),
                Row.ofKind(RowKind.DELETE, "4", "dan", ts),
                Row.ofKind(RowKind.INSERT, "1", "alice again", ts.plusSeconds(1)));
        t.createTemporaryView("cdc", t.fromChangelogStream(changes, Schema.newBuilder()
                .column("id", "STRING NOT NULL").column("name", "STRING").column("ts", "TIMESTAMP(3) NOT NULL")
                .primaryKey("id", "ts").build(), ChangelogMode.all()));
        t.executeSql("CREATE TABLE users (id STRING, name STRING, ts TIMESTAMP(3), PRIMARY KEY (id, ts) NOT ENFORCED)"
                + " WITH (" + with(server) + ")");
        t.executeSql("INSERT INTO users SELECT * FROM cdc").await();
        Map<String, Object> names = server.rows("users").stream()
                .collect(Collectors.toMap(r -> (String) r.get("id"), r -> r.get("name")));
        assertEquals(Map.of("1", "alice again", "2", "bobby", "3", "carol"), names);
    }

    @Test
    void everyMappedTypeIsStoredAsItsColumnType(GreptimeTestServer server) throws Exception {
        TableEnvironment t = streaming();
        t.executeSql("CREATE TABLE all_types (b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT, f32 FLOAT,"
                + " f64 DOUBLE, dc DECIMAL(12, 3), s STRING, c CHAR(3), vc VARCHAR(10), bin BYTES, d DATE,"
                + " t0 TIME(0), t3 TIME(3), ts0 TIMESTAMP(0), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ts9 TIMESTAMP(9),"
                + " ltz TIMESTAMP_LTZ(6), arr ARRAY<INT>, m MAP<STRING, DOUBLE>, r ROW<x INT, y STRING>,"
                + " PRIMARY KEY (s, ts9) NOT ENFORCED) WITH (" + with(server, "time-index", "ts9") + ")");
        t.executeSql("INSERT INTO all_types VALUES (TRUE, CAST(-8 AS TINYINT), CAST(-16 AS SMALLINT), -32,"
                + " -64000000000, CAST(1.5 AS FLOAT), 2.25, CAST(123456789.125 AS DECIMAL(12, 3)), 'text', 'abc',"
                + " 'varchar', X'0102FF', DATE '2024-02-29', TIME '12:34:56', TIME '12:34:56.789',"
                + " TIMESTAMP '2024-01-01 00:00:01', TIMESTAMP '2024-01-01 00:00:01.123',"
                + " TIMESTAMP '2024-01-01 00:00:01.123456', TIMESTAMP '2024-01-01 00:00:01.123456789',"
                + " TO_TIMESTAMP_LTZ(1704067201123, 3), ARRAY[1, 2, 3], MAP['a', 1.5], ROW(7, 'seven'))").await();
        TableSchema s = server.schema("all_types");
        Map<String, DataType> types = new HashMap<>();
        for (TableSchema.Column c : s.columns()) {
            types.put(c.name(), c.dataType());
        }
        assertEquals(Map.ofEntries(Map.entry("b", DataType.Bool), Map.entry("i8", DataType.Int8),
                Map.entry("i16", DataType.Int16), Map.entry("i32", DataType.Int32), Map.entry("i64", DataType.Int64),
                Map.entry("f32", DataType.Float32), Map.entry("f64", DataType.Float64),
                Map.entry("dc", DataType.Decimal128), Map.entry("s", DataType.String), Map.entry("c", DataType.String),
                Map.entry("vc", DataType.String), Map.entry("bin", DataType.Binary), Map.entry("d", DataType.Date),
                Map.entry("t0", DataType.TimeSecond), Map.entry("t3", DataType.TimeMillisecond),
                Map.entry("ts0", DataType.TimestampSecond), Map.entry("ts3", DataType.TimestampMillisecond),
                Map.entry("ts6", DataType.TimestampMicrosecond), Map.entry("ts9", DataType.TimestampNanosecond),
                Map.entry("ltz", DataType.TimestampMicrosecond), Map.entry("arr", DataType.Json),
                Map.entry("m", DataType.Json), Map.entry("r", DataType.Json)), types);
        assertEquals(new dev.sluice.data.DecimalType(12, 3), s.column(s.indexOf("dc")).decimalType());
        assertEquals(SemanticType.Timestamp, s.column(s.indexOf("ts9")).semanticType());
        Map<String, Object> r = server.rows("all_types").get(0);
        assertEquals(true, r.get("b"));
        assertEquals(-8L, r.get("i8"));
        assertEquals(-16L, r.get("i16"));
        assertEquals(-32L, r.get("i32"));
        assertEquals(-64_000_000_000L, r.get("i64"));
        assertEquals(1.5f, r.get("f32"));
        assertEquals(2.25, r.get("f64"));
        assertEquals(new BigDecimal("123456789.125"), r.get("dc"));
        assertEquals("text", r.get("s"));
        assertEquals("abc", r.get("c"));
        assertEquals("varchar", r.get("vc"));
        assertArrayEquals(new byte[] {1, 2, (byte) 0xFF}, (byte[]) r.get("bin"));
        assertEquals(LocalDate.of(2024, 2, 29), r.get("d"));
        assertEquals(12L * 3600 + 34 * 60 + 56, r.get("t0"));
        assertEquals((12L * 3600 + 34 * 60 + 56) * 1000 + 789, r.get("t3"));
        assertEquals(1_704_067_201L, r.get("ts0"));
        assertEquals(1_704_067_201_123L, r.get("ts3"));
        assertEquals(1_704_067_201_123_456L, r.get("ts6"));
        assertEquals(1_704_067_201_123_456_789L, r.get("ts9"));
        assertEquals(1_704_067_201_123_000L, r.get("ltz"));
        assertEquals("[1,2,3]", json(r.get("arr")));
        assertEquals("{\"a\":1.5}", json(r.get("m")));
        assertEquals("{\"x\":7,\"y\":\"seven\"}", json(r.get("r")));
    }

    private static String json(Object v) {
        String s = v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(v);
        return s.replace(" ", "");
    }

    @Test
    void aBoundedBatchJobImportsCsvFiles(GreptimeTestServer server, @TempDir Path dir) throws Exception {
        int expected = 0;
        for (int f = 0; f < 3; f++) {
            StringBuilder csv = new StringBuilder();
            for (int i = 0; i < 1000; i++) {
                int n = f * 1000 + i;
                csv.append("host-").append(n % 10).append(',').append(n).append(',').append(n * 0.5).append(',')
                        .append("2024-01-01 00:00:00.").append(String.format("%03d", i)).append('\n');
                expected++;
            }
            Files.writeString(dir.resolve("part-" + f + ".csv"), csv.toString());
        }
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.executeSql("CREATE TABLE csv_in (host STRING, n BIGINT, v DOUBLE, ts TIMESTAMP(3)) WITH ("
                + "'connector'='filesystem', 'path'='" + dir.toUri() + "', 'format'='csv')");
        t.executeSql("CREATE TABLE imported (host STRING, n BIGINT, v DOUBLE, ts TIMESTAMP(3)) WITH ("
                + with(server, "tags", "host;n", "write.path", "BULK", "sink.parallelism", "2") + ")");
        t.executeSql("INSERT INTO imported SELECT * FROM csv_in").await();
        List<Map<String, Object>> rows = server.rows("imported");
        assertEquals(expected, rows.size());
        for (Map<String, Object> r : rows) {
            long n = (Long) r.get("n");
            assertEquals("host-" + (n % 10), r.get("host"));
            assertEquals(n * 0.5, r.get("v"));
            assertEquals(1_704_067_200_000L + n % 1000, r.get("ts"));
        }
    }

    @Test
    void writesOverTlsTrustingTheGivenCa(@TempDir Path dir) throws Exception {
        dev.sluice.testkit.TestCertificates certs = new dev.sluice.testkit.TestCertificates(dir);
        Path ca = certs.ca();
        Path[] leaf = certs.leaf("server", "localhost", "dns:localhost,ip:127.0.0.1", true);
        try (GreptimeTestServer secured = GreptimeTestServer.builder().tls(leaf[0], leaf[1], null)
                .user("admin", "secret").start()) {
            TableEnvironment t = streaming();
            t.executeSql("CREATE TABLE tls_rows (host STRING, ts TIMESTAMP(3)) WITH (" + with(secured, "tls.ca",
                    ca.toString(), "username", "admin", "password", "secret", "database", "public") + ")");
            t.executeSql("INSERT INTO tls_rows VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')").await();
            assertEquals(1, secured.rowCount("tls_rows"));
            assertTrue(secured.requests().stream().anyMatch(r -> "admin".equals(r.username())),
                    "writes carried the credentials");
        }
    }

    @Test
    void aMissingRequiredOptionFailsAtPlanningNamingIt(GreptimeTestServer server) {
        TableEnvironment t = streaming();
        t.executeSql("CREATE TABLE no_endpoints (host STRING, ts TIMESTAMP(3)) WITH ('connector'='greptimedb')");
        ValidationException e = assertThrows(ValidationException.class,
                () -> t.executeSql("INSERT INTO no_endpoints VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')"));
        assertTrue(fullMessage(e).contains("endpoints"), fullMessage(e));
        t.executeSql("CREATE TABLE two_times (a TIMESTAMP(3), b TIMESTAMP(3)) WITH (" + with(server) + ")");
        ValidationException e2 = assertThrows(ValidationException.class, () -> t.executeSql(
                "INSERT INTO two_times VALUES (TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-01 00:00:00')"));
        assertTrue(fullMessage(e2).contains("'time-index' is required"), fullMessage(e2));
        assertEquals(0, server.rowCount("two_times"));
    }

    static Map<String, Map<String, Object>> byKey(List<Map<String, Object>> rows, String column) {
        Map<String, Map<String, Object>> out = new HashMap<>();
        for (Map<String, Object> r : rows) {
            out.put((String) r.get(column), r);
        }
        return out;
    }

    static String fullMessage(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append(" | ");
        }
        return b.toString();
    }
}
