package dev.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * SQL INSERT over HTTP (literals cast to the table's types, never creating tables) and the region option checks
 * on table options given through SQL DDL.
 */
class SqlInsertAndOptionsTest {
    static String code(HttpResponse<String> r) {
        return r.headers().firstValue("x-greptime-err-code").orElse(null);
    }

    @Test
    void insertCastsLiteralsToTheColumnTypesIncludingUtcTimestampText() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).start()) {
            assertEquals(200, SqlHttpEndpointTest.sql(s, "CREATE TABLE c (host STRING, n INT, ok BOOLEAN,"
                    + " price DECIMAL(10, 2), ts TIMESTAMP(3) TIME INDEX, PRIMARY KEY(host))").statusCode());
            HttpResponse<String> r = SqlHttpEndpointTest.sql(s, "INSERT INTO public.c (host, n, ok, price, ts) VALUES"
                    + " ('a', -3, true, 1.5, '1970-01-01 00:00:01.250'), ('b', NULL, false, 2, 7)");
            assertEquals(200, r.statusCode(), r.body());
            List<Map<String, Object>> rows = s.rows("c");
            assertEquals(2, rows.size());
            Map<String, Object> a = rows.stream().filter(m -> "a".equals(m.get("host"))).findFirst().orElseThrow();
            assertEquals(1250L, ((Number) a.get("ts")).longValue());
            assertEquals(-3L, ((Number) a.get("n")).longValue());
            assertEquals(true, a.get("ok"));
            assertEquals(0, new BigDecimal("1.50").compareTo((BigDecimal) a.get("price")));
            Map<String, Object> b = rows.stream().filter(m -> "b".equals(m.get("host"))).findFirst().orElseThrow();
            assertEquals(null, b.get("n"));
            assertEquals(7L, ((Number) b.get("ts")).longValue());
        }
    }

    @Test
    void insertIntoAMissingTableIsTableNotFoundAndCreatesNothing() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).start()) {
            HttpResponse<String> r = SqlHttpEndpointTest.sql(s, "INSERT INTO nosuch (ts) VALUES (1)");
            assertEquals("4001", code(r), r.body());
            assertEquals(List.of(), s.tables());
        }
    }

    @Test
    void insertWithAWrongValueCountOrUncastableLiteralStoresNothingAndNamesTheColumn() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).start()) {
            SqlHttpEndpointTest.sql(s, "CREATE TABLE w (n INT, ts TIMESTAMP TIME INDEX)");
            HttpResponse<String> width = SqlHttpEndpointTest.sql(s, "INSERT INTO w (n, ts) VALUES (1, 1), (2)");
            assertEquals("1004", code(width), width.body());
            HttpResponse<String> cast = SqlHttpEndpointTest.sql(s, "INSERT INTO w (n, ts) VALUES ('x', 1)");
            assertEquals("1004", code(cast), cast.body());
            assertTrue(cast.body().contains("column n") && cast.body().contains("row 0"), cast.body());
            assertEquals(0, s.rowCount("w"));
        }
    }

    @Test
    void ddlOptionsAreCheckedAsTheRegionReadsThem() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).start()) {
            // serde's enum names are case-sensitive and Rust's bool FromStr takes only true/false.
            for (String with : List.of("merge_mode='LAST_ROW'", "append_mode='TRUE'",
                    "append_mode='true', merge_mode='last_row'")) {
                HttpResponse<String> r = SqlHttpEndpointTest.sql(s, "CREATE TABLE o (ts TIMESTAMP TIME INDEX) WITH ("
                        + with + ")");
                assertEquals("1004", code(r), with + " -> " + r.body());
            }
            assertEquals(List.of(), s.tables());
            HttpResponse<String> ok = SqlHttpEndpointTest.sql(s, "CREATE TABLE o (ts TIMESTAMP TIME INDEX) WITH ("
                    + "append_mode='false', merge_mode='last_non_null')");
            assertEquals(200, ok.statusCode(), ok.body());
        }
    }
}
