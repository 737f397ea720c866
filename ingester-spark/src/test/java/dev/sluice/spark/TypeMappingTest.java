package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every mapped Spark type, with its edge values and NULLs, as the testkit stores it. */
class TypeMappingTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    static final String COLUMNS = "(id, i8, i16, i32, i64, f32, f64, dec, b, s, bin, d, t_ltz, t_ntz, arr, m, st, ts)";

    @Test
    void everyMappedTypeIsStoredAsItsColumnTypeWithEdgeValuesAndNulls(GreptimeTestServer server) {
        String max = "(1, CAST(127 AS TINYINT), CAST(32767 AS SMALLINT), 2147483647, 9223372036854775807L,"
                + " CAST('3.4028235E38' AS FLOAT), CAST('1.7976931348623157E308' AS DOUBLE),"
                + " CAST('99999999999999999999999999999.999999999' AS DECIMAL(38,9)), true, 'héllo ✓ \"q\"',"
                + " X'00FF', DATE'9999-12-31', TIMESTAMP'9999-12-31 23:59:59.999999',"
                + " TIMESTAMP_NTZ'9999-12-31 23:59:59.999999', array(1, NULL, 3), map('k', 1.5D),"
                + " named_struct('a', 1, 'b', 'x'), TIMESTAMP'2024-01-01 00:00:00.000001')";
        String min = "(2, CAST(-128 AS TINYINT), CAST(-32768 AS SMALLINT), -2147483648, -9223372036854775807L - 1,"
                + " CAST('-Infinity' AS FLOAT), CAST('NaN' AS DOUBLE),"
                + " CAST('-0.000000001' AS DECIMAL(38,9)), false, '', X'', DATE'0001-01-01',"
                + " TIMESTAMP'0001-01-01 00:00:00', TIMESTAMP_NTZ'1969-12-31 23:59:59.999999', array(),"
                + " map(), named_struct('a', NULL, 'b', ''), TIMESTAMP'1969-12-31 23:59:59.999999')";
        String nulls = "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
                + " NULL, TIMESTAMP'2024-01-01 00:00:00')";
        LocalSpark.write(LocalSpark.session().sql("SELECT * FROM VALUES " + max + ", " + min + ", " + nulls
                + " AS t" + COLUMNS), server, "types", "append", "tags", "id", "timeIndex", "ts");

        TableSchema s = server.schema("types");
        Map<String, DataType> expected = Map.ofEntries(Map.entry("id", DataType.Int32), Map.entry("i8", DataType.Int8),
                Map.entry("i16", DataType.Int16), Map.entry("i32", DataType.Int32), Map.entry("i64", DataType.Int64),
                Map.entry("f32", DataType.Float32), Map.entry("f64", DataType.Float64),
                Map.entry("dec", DataType.Decimal128), Map.entry("b", DataType.Bool), Map.entry("s", DataType.String),
                Map.entry("bin", DataType.Binary), Map.entry("d", DataType.Date),
                Map.entry("t_ltz", DataType.TimestampMicrosecond), Map.entry("t_ntz", DataType.TimestampMicrosecond),
                Map.entry("arr", DataType.Json), Map.entry("m", DataType.Json), Map.entry("st", DataType.Json),
                Map.entry("ts", DataType.TimestampMicrosecond));
        expected.forEach((c, t) -> assertEquals(t, s.column(s.indexOf(c)).dataType(), "type of " + c));
        assertEquals(new DecimalType(38, 9), s.column(s.indexOf("dec")).decimalType());

        Map<Object, Map<String, Object>> byId = LocalSpark.byKey(server.rows("types"), "id");
        Map<String, Object> hi = byId.get(1L);
        assertEquals(127L, hi.get("i8"));
        assertEquals(32767L, hi.get("i16"));
        assertEquals(2147483647L, hi.get("i32"));
        assertEquals(Long.MAX_VALUE, hi.get("i64"));
        assertEquals(Float.MAX_VALUE, hi.get("f32"));
        assertEquals(Double.MAX_VALUE, hi.get("f64"));
        assertEquals(0, new BigDecimal("99999999999999999999999999999.999999999").compareTo((BigDecimal) hi.get("dec")));
        assertEquals(true, hi.get("b"));
        assertEquals("héllo ✓ \"q\"", hi.get("s"));
        assertArrayEquals(new byte[] {0, (byte) 0xFF}, (byte[]) hi.get("bin"));
        assertEquals(LocalDate.of(9999, 12, 31), hi.get("d"));
        assertEquals(253_402_300_799_999_999L, hi.get("t_ltz"));
        assertEquals(253_402_300_799_999_999L, hi.get("t_ntz"));
        assertEquals("[1,null,3]", json(hi.get("arr")));
        assertEquals("{\"k\":1.5}", json(hi.get("m")));
        assertEquals("{\"a\":1,\"b\":\"x\"}", json(hi.get("st")));
        assertEquals(1_704_067_200_000_001L, hi.get("ts"));

        Map<String, Object> lo = byId.get(2L);
        assertEquals(-128L, lo.get("i8"));
        assertEquals(-32768L, lo.get("i16"));
        assertEquals(-2147483648L, lo.get("i32"));
        assertEquals(Long.MIN_VALUE, lo.get("i64"));
        assertEquals(Float.NEGATIVE_INFINITY, lo.get("f32"));
        assertEquals(Double.NaN, lo.get("f64"));
        assertEquals(0, new BigDecimal("-0.000000001").compareTo((BigDecimal) lo.get("dec")));
        assertEquals(false, lo.get("b"));
        assertEquals("", lo.get("s"));
        assertArrayEquals(new byte[0], (byte[]) lo.get("bin"));
        assertEquals(LocalDate.of(1, 1, 1), lo.get("d"));
        assertEquals(-62_135_596_800_000_000L, lo.get("t_ltz"));
        assertEquals(-1L, lo.get("t_ntz"));
        assertEquals("[]", json(lo.get("arr")));
        assertEquals("{}", json(lo.get("m")));
        assertEquals("{\"a\":null,\"b\":\"\"}", json(lo.get("st")));
        assertEquals(-1L, lo.get("ts"));

        Map<String, Object> none = byId.get(3L);
        for (String c : expected.keySet()) {
            if (!c.equals("id") && !c.equals("ts")) {
                assertNull(none.get(c), c + " of the NULL row");
            }
        }
    }

    @Test
    void aTypeWithNoColumnIsRefusedAtPlanningNamingTheColumn(GreptimeTestServer server) {
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql(
                "SELECT INTERVAL '1' DAY AS gap, TIMESTAMP'2024-01-01 00:00:00' AS ts"), server, "interval", "append"));
        String m = TablePlanningTest.rootMessage(e);
        assertTrue(m.contains("column gap") && m.contains("has no GreptimeDB column type"), m);
    }

    @Test
    void jsonColumnsAreRefusedAtPlanningOnTheBulkPath(GreptimeTestServer server) {
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql(
                "SELECT array(1) AS arr, TIMESTAMP'2024-01-01 00:00:00' AS ts"), server, "bulk_json", "append",
                "writePath", "bulk"));
        String m = TablePlanningTest.rootMessage(e);
        assertTrue(m.contains("column arr") && m.contains("writePath=regular"), m);
    }

    private static String json(Object stored) {
        return stored instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(stored);
    }
}
