package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.sql.HttpSql;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Options and statements the connector must refuse before any row is sent or deleted, each with a message naming
 * what is wrong; and the {@code DELETE FROM} forms it does translate.
 */
class RefusedOptionsAndPredicatesTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @BeforeAll
    static void register() {
        SparkSession s = LocalSpark.session();
        s.conf().set("spark.sql.catalog.refusals", GreptimeCatalog.class.getName());
        s.conf().set("spark.sql.catalog.refusals.endpoints", TESTKIT.server().endpoint());
        s.conf().set("spark.sql.catalog.refusals.httpEndpoint", TESTKIT.server().httpEndpoint());
    }

    static Dataset<Row> oneRow() {
        return LocalSpark.session().sql("SELECT 'a' AS host, 1.0D AS v, TIMESTAMP'2024-01-01 00:00:00' AS ts");
    }

    static String refusal(GreptimeTestServer server, String table, String... options) {
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(oneRow(), server, table, "append", options));
        assertEquals(requests, server.requestCount(), "nothing was sent");
        return TablePlanningTest.rootMessage(e);
    }

    @Test
    void anUnknownWritePathIsRefusedNamingTheOptionAndItsValues(GreptimeTestServer server) {
        String m = refusal(server, "bad_path", "writePath", "fast");
        assertTrue(m.contains("writePath") && m.contains("fast") && m.contains("regular") && m.contains("bulk"), m);
    }

    @Test
    void aBatchRowsThatIsNotANumberIsRefusedNamingTheOption(GreptimeTestServer server) {
        String m = refusal(server, "bad_rows", "batchRows", "ten");
        assertTrue(m.contains("batchRows") && m.contains("ten") && m.contains("whole number"), m);
    }

    @Test
    void aRetryTimeoutThatIsNotADurationIsRefusedNamingTheOption(GreptimeTestServer server) {
        String m = refusal(server, "bad_retry", "retryTimeout", "soon");
        assertTrue(m.contains("retryTimeout") && m.contains("soon"), m);
    }

    @Test
    void aConnectionStringBesideEndpointsIsRefusedNamingBoth(GreptimeTestServer server) {
        String m = refusal(server, "both_conn", "connection", "greptimedb://" + server.endpoint() + "/public");
        assertTrue(m.contains("connection") && m.contains("endpoints"), m);
    }

    @Test
    void aConnectionStringDatabaseBesideADifferentDatabaseOptionIsRefusedNamingBoth(GreptimeTestServer server) {
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> oneRow().write().format("greptimedb")
                .option("connection", "greptimedb://" + server.endpoint() + "/public")
                .option("httpEndpoint", server.httpEndpoint()).option("database", "other")
                .option("table", "both_db").mode("append").save());
        String m = TablePlanningTest.rootMessage(e);
        assertTrue(m.contains("connection") && m.contains("database"), m);
        assertEquals(requests, server.requestCount(), "nothing was sent");
    }

    @Test
    void aTagThatIsNotAColumnIsRefusedNamingIt(GreptimeTestServer server) {
        String m = refusal(server, "bad_tag", "tags", "hots");
        assertTrue(m.contains("hots"), m);
        assertTrue(!server.tables().contains("bad_tag"), "no table created");
    }

    @Test
    void aTimeIndexThatIsNotATimestampColumnIsRefusedNamingIt(GreptimeTestServer server) {
        String m = refusal(server, "bad_ti", "tags", "host", "timeIndex", "v");
        assertTrue(m.contains("time index v is DOUBLE") && m.contains("cast it"), m);
        assertTrue(!server.tables().contains("bad_ti"), "no table created");
    }

    @Test
    void twoTimestampColumnsWithoutATimeIndexAreRefusedNamingBoth(GreptimeTestServer server) {
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql(
                "SELECT 'a' AS host, TIMESTAMP'2024-01-01 00:00:00' AS t1, TIMESTAMP_NTZ'2024-01-01 00:00:00' AS t2"),
                server, "two_ts", "append", "tags", "host"));
        String m = TablePlanningTest.rootMessage(e);
        assertTrue(m.contains("t1") && m.contains("t2") && m.contains("timeIndex"), m);
        assertEquals(requests, server.requestCount());
    }

    static void create(String table) throws Exception {
        HttpSql.newBuilder(TESTKIT.server().httpEndpoint(), "public").build().execute("CREATE TABLE " + table
                + " (host STRING, usage DOUBLE, ts TIMESTAMP(3) TIME INDEX, PRIMARY KEY (host))");
        LocalSpark.session().range(0, 6).selectExpr("IF(id % 2 = 0, 'a', 'b') AS host",
                "CAST(id AS DOUBLE) AS usage", "timestamp_millis(1704067200000 + id * 1000) AS ts")
                .writeTo("refusals.public." + table).append();
    }

    @Test
    void deleteFromWithInAndOrOnTagsAndTimeIndexRemovesExactlyTheMatches(GreptimeTestServer server) throws Exception {
        create("del_or");
        LocalSpark.session().sql("DELETE FROM refusals.public.del_or WHERE host IN ('b')"
                + " OR (host = 'a' AND ts >= TIMESTAMP'2024-01-01 00:00:04')");
        assertEquals(java.util.Set.of(0.0, 2.0), usages(server, "del_or"));
    }

    @Test
    void deleteFromWithAFunctionOfATagIsRefusedAndDeletesNothing(GreptimeTestServer server) throws Exception {
        create("del_fn");
        Exception e = assertThrows(Exception.class,
                () -> LocalSpark.session().sql("DELETE FROM refusals.public.del_fn WHERE upper(host) = 'A'"));
        assertTrue(TablePlanningTest.rootMessage(e).toLowerCase(Locale.ROOT).contains("delete"),
                TablePlanningTest.rootMessage(e));
        assertEquals(6, server.rowCount("del_fn"));
    }

    @Test
    void aJsonValueTheServerRefusesNamesTaskPartitionRowAndColumn(GreptimeTestServer server) throws Exception {
        HttpSql.newBuilder(server.httpEndpoint(), "public").build().execute(
                "CREATE TABLE docs (host STRING, j JSON, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))");
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql("SELECT * FROM VALUES"
                + " ('a', '{\"k\":1}', TIMESTAMP'2024-01-01 00:00:00'), ('b', '{not json', TIMESTAMP'2024-01-01 00:00:01')"
                + " AS t(host, j, ts)").coalesce(1), server, "docs", "append"));
        String m = TablePlanningTest.rootMessage(e);
        assertTrue(m.contains("task") && m.contains("partition") && m.contains("column j") && m.contains("b"), m);
    }

    static java.util.Set<Double> usages(GreptimeTestServer server, String table) {
        java.util.Set<Double> out = new java.util.TreeSet<>();
        server.rows(table).forEach(r -> out.add((Double) r.get("usage")));
        return out;
    }
}
