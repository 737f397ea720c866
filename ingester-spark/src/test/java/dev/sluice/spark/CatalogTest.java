package dev.sluice.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.sql.HttpSql;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code greptime} catalog: {@code writeTo(...).append()}, {@code INSERT INTO ... SELECT}, overwriting a time
 * range and {@code DELETE FROM}, on tables created in GreptimeDB with millisecond timestamps.
 */
class CatalogTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();
    static final long T0 = 1_704_067_200_000L;

    @BeforeAll
    static void register() {
        SparkSession s = LocalSpark.session();
        s.conf().set("spark.sql.catalog.greptime", GreptimeCatalog.class.getName());
        s.conf().set("spark.sql.catalog.greptime.endpoints", TESTKIT.server().endpoint());
        s.conf().set("spark.sql.catalog.greptime.httpEndpoint", TESTKIT.server().httpEndpoint());
    }

    static void create(GreptimeTestServer server, String table) throws Exception {
        HttpSql.newBuilder(server.httpEndpoint(), "public").build().execute("CREATE TABLE " + table
                + " (host STRING, usage DOUBLE, ts TIMESTAMP(3) TIME INDEX, PRIMARY KEY (host))");
    }

    /** Appends rows 0..n-1, one a second from {@link #T0}, with usage = the row's number. */
    static void appendSeconds(String table, int n, String hostExpression) throws Exception {
        LocalSpark.session().range(0, n).selectExpr(hostExpression + " AS host", "CAST(id AS DOUBLE) AS usage",
                "timestamp_millis(" + T0 + " + id * 1000) AS ts").writeTo("greptime.public." + table).append();
    }

    static Map<String, Double> stored(GreptimeTestServer server, String table) {
        Map<String, Double> out = new TreeMap<>();
        for (Map<String, Object> r : server.rows(table)) {
            out.put(r.get("host") + "@" + ((Long) r.get("ts") - T0), (Double) r.get("usage"));
        }
        return out;
    }

    @Test
    void writeToAppendsAndInsertIntoSelectWritesInTheTablesTimestampUnit(GreptimeTestServer server) throws Exception {
        create(server, "cpu");
        SparkSession s = LocalSpark.session();
        s.sql("SELECT 'a' AS host, 0.5D AS usage, TIMESTAMP'2024-01-01 00:00:01.250999' AS ts")
                .writeTo("greptime.public.cpu").append();
        s.sql("INSERT INTO greptime.public.cpu SELECT 'b', 1.5D, TIMESTAMP'2024-01-01 00:00:02'");
        assertEquals(Map.of("a@1250", 0.5, "b@2000", 1.5), stored(server, "cpu"));
    }

    @Test
    void overwritingATimeRangeReplacesOnlyThatRange(GreptimeTestServer server) throws Exception {
        create(server, "ranged");
        SparkSession s = LocalSpark.session();
        appendSeconds("ranged", 10, "'a'");
        s.sql("SELECT 'a' AS host, 99.0D AS usage, timestamp_millis(" + (T0 + 5500) + ") AS ts")
                .writeTo("greptime.public.ranged")
                .overwrite(col("ts").geq(lit(Timestamp.from(Instant.ofEpochMilli(T0 + 5000))))
                        .and(col("ts").lt(lit(Timestamp.from(Instant.ofEpochMilli(T0 + 8000))))));
        Map<String, Double> expected = new TreeMap<>();
        for (int i : new int[] {0, 1, 2, 3, 4, 8, 9}) {
            expected.put("a@" + i * 1000, (double) i);
        }
        expected.put("a@5500", 99.0);
        assertEquals(expected, stored(server, "ranged"));
    }

    @Test
    void deleteFromRemovesTheRowsItsWhereMatchesOnTagsAndTimeIndex(GreptimeTestServer server) throws Exception {
        create(server, "pruned");
        SparkSession s = LocalSpark.session();
        appendSeconds("pruned", 6, "IF(id % 2 = 0, 'a', 'b')");
        s.sql("DELETE FROM greptime.public.pruned WHERE host = 'a' AND ts < TIMESTAMP'2024-01-01 00:00:04'");
        assertEquals(Map.of("a@4000", 4.0, "b@1000", 1.0, "b@3000", 3.0, "b@5000", 5.0), stored(server, "pruned"));
    }

    @Test
    void deleteFromOnAFieldIsRefusedAndDeletesNothing(GreptimeTestServer server) throws Exception {
        create(server, "kept");
        SparkSession s = LocalSpark.session();
        appendSeconds("kept", 3, "'a'");
        Exception e = assertThrows(Exception.class,
                () -> s.sql("DELETE FROM greptime.public.kept WHERE usage > 1.0"));
        assertTrue(TablePlanningTest.rootMessage(e).toLowerCase(java.util.Locale.ROOT).contains("delete"),
                TablePlanningTest.rootMessage(e));
        assertEquals(3, server.rowCount("kept"));
    }
}
