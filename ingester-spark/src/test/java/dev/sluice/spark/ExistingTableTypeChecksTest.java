package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.sql.HttpSql;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Writes into tables created in GreptimeDB beforehand: type clashes on the bulk path and
 * decimals of another precision or scale, refused rather than rounded. */
class ExistingTableTypeChecksTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    static void sql(GreptimeTestServer server, String statement) throws Exception {
        HttpSql.newBuilder(server.httpEndpoint(), "public").build().execute(statement);
    }

    @Test
    void aTypeClashOnTheBulkPathFailsAtPlanningNamingBothTypes(GreptimeTestServer server) throws Exception {
        sql(server, "CREATE TABLE bulk_clash (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))");
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql(
                "SELECT 'a' AS host, 'x' AS v, TIMESTAMP'2024-01-01 00:00:00' AS ts"), server, "bulk_clash", "append",
                "writePath", "bulk"));
        String m = TablePlanningTest.rootMessage(e);
        assertTrue(m.contains("column v is STRING in the DataFrame") && m.contains("Float64"), m);
        assertEquals(requests, server.requestCount(), "no write request was sent");
    }

    @Test
    void aDecimalWithMoreScaleThanTheColumnIsNeverRounded(GreptimeTestServer server) throws Exception {
        sql(server, "CREATE TABLE money (host STRING, amount DECIMAL(10, 2), ts TIMESTAMP TIME INDEX,"
                + " PRIMARY KEY (host))");
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql(
                "SELECT 'a' AS host, CAST('1.005' AS DECIMAL(10,3)) AS amount, TIMESTAMP'2024-01-01 00:00:00' AS ts"),
                server, "money", "append"), () -> "stored " + server.rows("money"));
        String m = TablePlanningTest.rootMessage(e);
        assertTrue(m.contains("amount"), m);
        assertEquals(0, server.rowCount("money"));
    }

    @Test
    void aDecimalOfAnotherPrecisionFailsAtPlanningNamingBothTypesAndTheCast(GreptimeTestServer server)
            throws Exception {
        sql(server, "CREATE TABLE wide (host STRING, amount DECIMAL(38, 10), ts TIMESTAMP TIME INDEX,"
                + " PRIMARY KEY (host))");
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql(
                "SELECT 'a' AS host, CAST('-12345678.125' AS DECIMAL(12,3)) AS amount,"
                + " TIMESTAMP'2024-01-01 00:00:00' AS ts"), server, "wide", "append"));
        String m = TablePlanningTest.rootMessage(e);
        assertTrue(m.contains("column amount is DECIMAL(12,3) in the DataFrame") && m.contains("Decimal(38, 10)")
                && m.contains("cast it"), m);
        assertEquals(requests, server.requestCount(), "no write request was sent");
    }
}
