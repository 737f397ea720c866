package dev.sluice.flink;

import static dev.sluice.flink.SqlConnectorTest.with;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Values at the edges of the README's type table: precisions, units, pre-1970 instants, nested JSON, NULLs. */
class SqlTypeMappingEdgeValuesTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    static StreamTableEnvironment env(String zone) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().setLocalTimeZone(ZoneId.of(zone));
        return t;
    }

    static Map<String, DataType> types(TableSchema s) {
        Map<String, DataType> types = new HashMap<>();
        for (TableSchema.Column c : s.columns()) {
            types.put(c.name(), c.dataType());
        }
        return types;
    }

    static String json(Object v) {
        return (v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(v)).replace(" ", "");
    }

    @Test
    void everyTimestampPrecisionIsStoredInItsUnitAlsoBefore1970(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment t = env("UTC");
        t.executeSql("CREATE TABLE ts_units (k STRING, ts0 TIMESTAMP(0), ts2 TIMESTAMP(2), ts5 TIMESTAMP(5),"
                + " ts8 TIMESTAMP(8), ts9 TIMESTAMP(9), t6 TIME(6), PRIMARY KEY (k, ts9) NOT ENFORCED) WITH ("
                + with(server, "time-index", "ts9") + ")");
        t.executeSql("INSERT INTO ts_units VALUES ('old', TIMESTAMP '1969-12-31 23:59:59',"
                + " TIMESTAMP '1969-12-31 23:59:59.99', TIMESTAMP '1969-12-31 23:59:59.99999',"
                + " TIMESTAMP '1969-12-31 23:59:59.99999999', TIMESTAMP '1969-12-31 23:59:59.999999999',"
                + " TIME '23:59:59.123456')").await();
        TableSchema s = server.schema("ts_units");
        assertEquals(DataType.TimestampSecond, types(s).get("ts0"));
        assertEquals(DataType.TimestampMillisecond, types(s).get("ts2"));
        assertEquals(DataType.TimestampMicrosecond, types(s).get("ts5"));
        assertEquals(DataType.TimestampNanosecond, types(s).get("ts8"));
        assertEquals(DataType.TimestampNanosecond, types(s).get("ts9"));
        assertEquals(DataType.TimeMillisecond, types(s).get("t6"));
        Map<String, Object> r = server.rows("ts_units").get(0);
        assertEquals(-1L, r.get("ts0"));
        assertEquals(-10L, r.get("ts2"));
        assertEquals(-10L, r.get("ts5"));
        assertEquals(-10L, r.get("ts8"));
        assertEquals(-1L, r.get("ts9"));
        assertEquals(86_399_123L, r.get("t6"));
    }

    @Test
    void timestampLtzIsTheInstantWhateverTheSessionZone(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment t = env("Asia/Shanghai");
        t.executeSql("CREATE TABLE ltz_units (k STRING, l0 TIMESTAMP_LTZ(0), l3 TIMESTAMP_LTZ(3),"
                + " l6 TIMESTAMP_LTZ(6), l9 TIMESTAMP_LTZ(9), wall TIMESTAMP(3), PRIMARY KEY (k, l9) NOT ENFORCED) WITH ("
                + with(server, "time-index", "l9") + ")");
        // 08:00:01 in Shanghai is 00:00:01 UTC; the TIMESTAMP column keeps its wall clock as UTC
        t.executeSql("INSERT INTO ltz_units VALUES ('x',"
                + " CAST(TIMESTAMP '2024-01-01 08:00:01' AS TIMESTAMP_LTZ(0)),"
                + " CAST(TIMESTAMP '2024-01-01 08:00:01.123' AS TIMESTAMP_LTZ(3)),"
                + " CAST(TIMESTAMP '2024-01-01 08:00:01.123456' AS TIMESTAMP_LTZ(6)),"
                + " CAST(TIMESTAMP '2024-01-01 08:00:01.123456789' AS TIMESTAMP_LTZ(9)),"
                + " TIMESTAMP '2024-01-01 08:00:01.123')").await();
        Map<String, DataType> types = types(server.schema("ltz_units"));
        assertEquals(DataType.TimestampSecond, types.get("l0"));
        assertEquals(DataType.TimestampMillisecond, types.get("l3"));
        assertEquals(DataType.TimestampMicrosecond, types.get("l6"));
        assertEquals(DataType.TimestampNanosecond, types.get("l9"));
        Map<String, Object> r = server.rows("ltz_units").get(0);
        assertEquals(1_704_067_201L, r.get("l0"));
        assertEquals(1_704_067_201_123L, r.get("l3"));
        assertEquals(1_704_067_201_123_456L, r.get("l6"));
        assertEquals(1_704_067_201_123_456_789L, r.get("l9"));
        assertEquals(1_704_096_001_123L, r.get("wall"));
    }

    @Test
    void decimalsAtTheirBoundsAreStoredUnrounded(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment t = env("UTC");
        t.executeSql("CREATE TABLE decimals (k STRING, d38 DECIMAL(38, 0), d38s DECIMAL(38, 10), frac DECIMAL(5, 5),"
                + " neg DECIMAL(10, 2), ts TIMESTAMP(3), PRIMARY KEY (k, ts) NOT ENFORCED) WITH (" + with(server) + ")");
        t.executeSql("INSERT INTO decimals VALUES ('x',"
                + " CAST('99999999999999999999999999999999999999' AS DECIMAL(38, 0)),"
                + " CAST('-1234567890123456789012345678.0123456789' AS DECIMAL(38, 10)),"
                + " CAST(0.00001 AS DECIMAL(5, 5)), CAST('-0.01' AS DECIMAL(10, 2)),"
                + " TIMESTAMP '2024-01-01 00:00:00')").await();
        TableSchema s = server.schema("decimals");
        assertEquals(new DecimalType(38, 0), s.column(s.indexOf("d38")).decimalType());
        assertEquals(new DecimalType(38, 10), s.column(s.indexOf("d38s")).decimalType());
        assertEquals(new DecimalType(5, 5), s.column(s.indexOf("frac")).decimalType());
        assertEquals(new DecimalType(10, 2), s.column(s.indexOf("neg")).decimalType());
        Map<String, Object> r = server.rows("decimals").get(0);
        assertEquals(0, new BigDecimal("99999999999999999999999999999999999999").compareTo((BigDecimal) r.get("d38")));
        assertEquals(0, new BigDecimal("-1234567890123456789012345678.0123456789")
                .compareTo((BigDecimal) r.get("d38s")), String.valueOf(r.get("d38s")));
        assertEquals(0, new BigDecimal("0.00001").compareTo((BigDecimal) r.get("frac")));
        assertEquals(0, new BigDecimal("-0.01").compareTo((BigDecimal) r.get("neg")));
    }

    @Test
    void binaryOfFixedAndVariableLengthAndNullsInEveryColumn(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment t = env("UTC");
        t.executeSql("CREATE TABLE bins (k STRING, b3 BINARY(3), vb VARBINARY(5), i INT, d DOUBLE, arr ARRAY<INT>,"
                + " dc DECIMAL(6, 2), ts TIMESTAMP(3), PRIMARY KEY (k, ts) NOT ENFORCED) WITH (" + with(server) + ")");
        t.executeSql("INSERT INTO bins VALUES ('full', X'00FF10', X'DEADBEEF', 1, 0.5, ARRAY[1], CAST(1.25 AS DECIMAL(6, 2)),"
                + " TIMESTAMP '2024-01-01 00:00:00'),"
                + " ('nulls', CAST(NULL AS BINARY(3)), CAST(NULL AS VARBINARY(5)), CAST(NULL AS INT),"
                + " CAST(NULL AS DOUBLE), CAST(NULL AS ARRAY<INT>), CAST(NULL AS DECIMAL(6, 2)),"
                + " TIMESTAMP '2024-01-01 00:00:00')").await();
        Map<String, DataType> types = types(server.schema("bins"));
        assertEquals(DataType.Binary, types.get("b3"));
        assertEquals(DataType.Binary, types.get("vb"));
        Map<String, Map<String, Object>> byKey = SqlConnectorTest.byKey(server.rows("bins"), "k");
        assertArrayEquals(new byte[] {0, (byte) 0xFF, 0x10}, (byte[]) byKey.get("full").get("b3"));
        assertArrayEquals(new byte[] {(byte) 0xDE, (byte) 0xAD, (byte) 0xBE, (byte) 0xEF},
                (byte[]) byKey.get("full").get("vb"));
        for (String c : List.of("b3", "vb", "i", "d", "arr", "dc")) {
            assertNull(byKey.get("nulls").get(c), c);
        }
    }

    @Test
    void nestedValuesOfEveryKindBecomeTheDocumentedJson(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment t = env("UTC");
        t.executeSql("CREATE TABLE nested (k STRING, r ROW<i8 TINYINT, f FLOAT, dc DECIMAL(5, 2), d DATE, tm TIME(0),"
                + " ts TIMESTAMP(3), b BYTES, ok BOOLEAN, nothing STRING>, ms MULTISET<STRING>,"
                + " mi MAP<INT, STRING>, ar ARRAY<ROW<x INT, tags ARRAY<STRING>>>, t TIMESTAMP(3))"
                + " WITH (" + with(server, "time-index", "t", "tags", "k") + ")");
        t.executeSql("INSERT INTO nested SELECT 'x', ROW(CAST(-1 AS TINYINT), CAST(0.5 AS FLOAT),"
                + " CAST(12.34 AS DECIMAL(5, 2)), DATE '2024-02-29', TIME '01:02:03',"
                + " TIMESTAMP '2024-01-01 00:00:01.5', X'010203', TRUE, CAST(NULL AS STRING)),"
                + " (SELECT COLLECT(s) FROM (VALUES ('a'), ('a')) AS v(s)), MAP[1, 'one'],"
                + " ARRAY[ROW(1, ARRAY['p', 'q'])], TIMESTAMP '2024-01-01 00:00:00'").await();
        Map<String, DataType> types = types(server.schema("nested"));
        assertEquals(DataType.Json, types.get("r"));
        assertEquals(DataType.Json, types.get("ms"));
        assertEquals(DataType.Json, types.get("mi"));
        assertEquals(DataType.Json, types.get("ar"));
        Map<String, Object> row = server.rows("nested").get(0);
        assertEquals("{\"i8\":-1,\"f\":0.5,\"dc\":12.34,\"d\":\"2024-02-29\",\"tm\":\"01:02:03\","
                + "\"ts\":\"2024-01-01T00:00:01.500Z\",\"b\":\"AQID\",\"ok\":true,\"nothing\":null}", json(row.get("r")));
        assertEquals("[\"a\",\"a\"]", json(row.get("ms")));
        assertEquals("{\"1\":\"one\"}", json(row.get("mi")));
        assertEquals("[{\"x\":1,\"tags\":[\"p\",\"q\"]}]", json(row.get("ar")));
    }

    /** README: a value that does not fit its column fails the job naming element, table, column and row. */
    @Test
    void aNanInsideAJsonColumnFailsTheJobNamingTheColumn(GreptimeTestServer server) {
        StreamTableEnvironment t = env("UTC");
        t.executeSql("CREATE TABLE nan_json (k STRING, arr ARRAY<DOUBLE>, ts TIMESTAMP(3)) WITH ("
                + with(server, "tags", "k") + ")");
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> t.executeSql(
                "INSERT INTO nan_json VALUES ('x', ARRAY[CAST('NaN' AS DOUBLE)], TIMESTAMP '2024-01-01 00:00:00')")
                .await());
        String m = SqlConnectorTest.fullMessage(e);
        org.junit.jupiter.api.Assertions.assertTrue(m.contains("arr") && m.contains("nan_json") && m.contains("k=x"), m);
        assertEquals(0, server.rowCount("nan_json"));
    }
}
