package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Edge values the type table promises, written on the regular and the bulk path into a table the write creates:
 * decimal(38, 0) and decimal(38, 38) extremes, negative zero, dates before 1970 and before the Gregorian reform,
 * timestamp_ntz as the time index, and NULL in every field.
 */
class EdgeValuesOnBothWritePathsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    static final String NINES = "99999999999999999999999999999999999999";

    @ParameterizedTest
    @ValueSource(strings = {"regular", "bulk"})
    void scalarEdgeValuesAndNullsAreStoredExactlyOnEitherPath(String path, GreptimeTestServer server) {
        String table = "edges_" + path;
        String hi = "(1, CAST('" + NINES + "' AS DECIMAL(38,0)), CAST('0." + NINES + "' AS DECIMAL(38,38)),"
                + " CAST('-0.0' AS DOUBLE), CAST('-0.0' AS FLOAT), DATE'1582-10-04', DATE'1969-12-31', X'DEADBEEF',"
                + " TIMESTAMP_NTZ'1500-03-01 12:00:00.000001')";
        String lo = "(2, CAST('-" + NINES + "' AS DECIMAL(38,0)), CAST('-0." + NINES + "' AS DECIMAL(38,38)),"
                + " CAST('Infinity' AS DOUBLE), CAST('NaN' AS FLOAT), DATE'1582-10-15', DATE'0001-01-01', X'00',"
                + " TIMESTAMP_NTZ'1970-01-01 00:00:00')";
        String none = "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, TIMESTAMP_NTZ'2024-01-01 00:00:00')";
        LocalSpark.write(LocalSpark.session().sql("SELECT * FROM VALUES " + hi + ", " + lo + ", " + none
                + " AS t(id, d38, d3838, f64, f32, julian, before_epoch, bin, ts)"), server, table, "append",
                "tags", "id", "writePath", path);

        Map<Object, Map<String, Object>> byId = LocalSpark.byKey(server.rows(table), "id");
        assertEquals(3, byId.size());
        Map<String, Object> h = byId.get(1L);
        assertEquals(new BigDecimal(NINES), h.get("d38"));
        assertEquals(0, new BigDecimal("0." + NINES).compareTo((BigDecimal) h.get("d3838")));
        assertEquals(Double.doubleToRawLongBits(-0.0d), Double.doubleToRawLongBits((Double) h.get("f64")), "-0.0 kept");
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits((Float) h.get("f32")), "-0.0f kept");
        assertEquals(LocalDate.of(1582, 10, 4), h.get("julian"));
        assertEquals(LocalDate.of(1969, 12, 31), h.get("before_epoch"));
        assertArrayEquals(new byte[] {(byte) 0xDE, (byte) 0xAD, (byte) 0xBE, (byte) 0xEF}, (byte[]) h.get("bin"));
        assertEquals(java.time.LocalDateTime.of(1500, 3, 1, 12, 0).toEpochSecond(java.time.ZoneOffset.UTC) * 1_000_000L + 1L,
                h.get("ts"), "timestamp_ntz 1500-03-01 12:00:00.000001 as if UTC, proleptic Gregorian");

        Map<String, Object> l = byId.get(2L);
        assertEquals(new BigDecimal("-" + NINES), l.get("d38"));
        assertEquals(0, new BigDecimal("-0." + NINES).compareTo((BigDecimal) l.get("d3838")));
        assertEquals(Double.POSITIVE_INFINITY, l.get("f64"));
        assertEquals(Float.NaN, l.get("f32"));
        assertEquals(LocalDate.of(1582, 10, 15), l.get("julian"));
        assertEquals(LocalDate.of(1, 1, 1), l.get("before_epoch"));
        assertArrayEquals(new byte[] {0}, (byte[]) l.get("bin"));
        assertEquals(0L, l.get("ts"));

        Map<String, Object> n = byId.get(3L);
        for (String c : new String[] {"d38", "d3838", "f64", "f32", "julian", "before_epoch", "bin"}) {
            assertNull(n.get(c), c + " of the NULL row on the " + path + " path");
        }
    }

    @Test
    void nestedArraysMapsAndStructsBecomeTheDocumentedJson(GreptimeTestServer server) {
        LocalSpark.write(LocalSpark.session().sql("SELECT 1 AS id,"
                + " array(named_struct('d', DATE'1500-01-01', 'b', X'0102', 'm', map(1, array(CAST(NULL AS INT)))))"
                + " AS nested,"
                + " CAST(NULL AS ARRAY<INT>) AS null_array, TIMESTAMP'2024-01-01 00:00:00' AS ts"),
                server, "nested", "append", "tags", "id");
        Map<String, Object> r = server.rows("nested").get(0);
        assertEquals("[{\"d\":\"1500-01-01\",\"b\":\"AQI=\",\"m\":{\"1\":[null]}}]", json(r.get("nested")));
        assertNull(r.get("null_array"));
    }

    @Test
    void aNaNInsideANestedValueIsRefusedNamingTaskPartitionRowAndColumn(GreptimeTestServer server) {
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql("SELECT * FROM VALUES"
                + " (1, map('k', 1.5D), TIMESTAMP'2024-01-01 00:00:00'),"
                + " (2, map('k', CAST('NaN' AS DOUBLE)), TIMESTAMP'2024-01-01 00:00:01') AS t(id, m, ts)").coalesce(1),
                server, "nan_json", "append", "tags", "id"));
        String m = TablePlanningTest.rootMessage(e);
        assertTrue(m.contains("task") && m.contains("(partition 0)") && m.contains("column m")
                && m.contains("JSON has no form for NaN") && m.contains("id=2"), m);
    }

    private static String json(Object stored) {
        return stored instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(stored);
    }
}
