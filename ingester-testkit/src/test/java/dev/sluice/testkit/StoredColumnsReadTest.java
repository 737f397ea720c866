package dev.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link GreptimeTestServer#columns} reads the named columns of the stored rows, lined up with each other and with
 * {@link GreptimeTestServer#rows}: an overwritten row reads its newer values at its newer place, NULL reads null,
 * and a missing column is named.
 */
class StoredColumnsReadTest {
    @Test
    void columnsHoldTheStoredRowsValuesInTheOrderOfRows() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).start()) {
            ok(s, "CREATE TABLE t (host STRING, v DOUBLE NULL, ts TIMESTAMP(3) NOT NULL, TIME INDEX (ts),"
                    + " PRIMARY KEY (host))");
            ok(s, "INSERT INTO t (host, v, ts) VALUES ('a', 1.5, 1), ('b', NULL, 2), ('c', 3.5, 3)");
            ok(s, "INSERT INTO t (host, v, ts) VALUES ('a', 4.5, 1)");

            List<List<Object>> columns = s.columns("t", "v", "host", "ts");

            assertEquals(Arrays.asList(null, 3.5, 4.5), columns.get(0));
            assertEquals(List.of("b", "c", "a"), columns.get(1));
            assertEquals(List.of(2L, 3L, 1L), columns.get(2));
            List<Map<String, Object>> rows = s.rows("t");
            for (String name : List.of("v", "host", "ts")) {
                List<Object> fromRows = new ArrayList<>();
                rows.forEach(r -> fromRows.add(r.get(name)));
                assertEquals(fromRows, columns.get(List.of("v", "host", "ts").indexOf(name)), name);
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.columns("t", "w"));
            assertEquals("table t has no column w", e.getMessage());
        }
    }

    private static void ok(GreptimeTestServer s, String statement) throws Exception {
        HttpResponse<String> r = SqlHttpEndpointTest.sql(s, statement);
        assertEquals(200, r.statusCode(), statement + " -> " + r.body());
    }
}
