package dev.sluice.spark.deletes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spark.Failures;
import dev.sluice.spark.GreptimeCatalog;
import dev.sluice.spark.LocalSpark;
import dev.sluice.sql.HttpSql;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code DELETE FROM} or overwrite condition the connector cannot translate is refused with nothing deleted, and
 * the refusal names the column or expression and says which conditions are accepted (comparisons of tags and the
 * time index with literals).
 */
class RefusedConditionsNameTheColumnAndWhatIsAcceptedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @BeforeAll
    static void register() {
        SparkSession s = LocalSpark.session();
        s.conf().set("spark.sql.catalog.gtrefuse", GreptimeCatalog.class.getName());
        s.conf().set("spark.sql.catalog.gtrefuse.endpoints", TESTKIT.server().endpoint());
        s.conf().set("spark.sql.catalog.gtrefuse.httpEndpoint", TESTKIT.server().httpEndpoint());
    }

    private static void create(String table) throws Exception {
        HttpSql.newBuilder(TESTKIT.server().httpEndpoint(), "public").build().execute("CREATE TABLE " + table
                + " (host STRING, usage DOUBLE, ts TIMESTAMP(3) TIME INDEX, PRIMARY KEY (host))");
        LocalSpark.session().range(0, 6).selectExpr("IF(id % 2 = 0, 'a', 'b') AS host",
                "CAST(id AS DOUBLE) AS usage", "timestamp_millis(1704067200000 + id * 1000) AS ts")
                .writeTo("gtrefuse.public." + table).append();
    }

    @Test
    void anOverwriteConditionOnAFieldNamesTheColumnAndWhatIsAccepted(GreptimeTestServer server) throws Exception {
        create("ow_field");
        Exception e = assertThrows(Exception.class, () -> LocalSpark.session().sql(
                "SELECT 'a' AS host, 9.0D AS usage, TIMESTAMP'2024-01-01 00:00:00' AS ts")
                .writeTo("gtrefuse.public.ow_field").overwrite(functions.col("usage").gt(1)));
        String m = Failures.messages(e);
        assertEquals(6, server.rowCount("ow_field"));
        assertTrue(m.contains("usage") && m.contains("tags") && m.contains("time index"), m);
        assertFalse(m.contains("GreptimeTable@"), m);
    }

    @Test
    void aDeleteOnAFunctionOfATagNamesTheExpressionAndWhatIsAccepted(GreptimeTestServer server) throws Exception {
        create("del_fn");
        Exception e = assertThrows(Exception.class,
                () -> LocalSpark.session().sql("DELETE FROM gtrefuse.public.del_fn WHERE upper(host) = 'A'"));
        String m = Failures.messages(e);
        assertEquals(6, server.rowCount("del_fn"));
        assertTrue(m.contains("UPPER") && m.contains("tags") && m.contains("time index"), m);
    }
}
