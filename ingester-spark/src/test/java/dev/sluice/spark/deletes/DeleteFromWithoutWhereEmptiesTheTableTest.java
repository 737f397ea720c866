package dev.sluice.spark.deletes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.spark.GreptimeCatalog;
import dev.sluice.spark.LocalSpark;
import dev.sluice.sql.HttpSql;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code DELETE FROM} a catalog's table without a condition empties the table (it is truncated). */
class DeleteFromWithoutWhereEmptiesTheTableTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @BeforeAll
    static void register() {
        SparkSession s = LocalSpark.session();
        s.conf().set("spark.sql.catalog.gtdelall", GreptimeCatalog.class.getName());
        s.conf().set("spark.sql.catalog.gtdelall.endpoints", TESTKIT.server().endpoint());
        s.conf().set("spark.sql.catalog.gtdelall.httpEndpoint", TESTKIT.server().httpEndpoint());
    }

    @Test
    void deleteFromWithoutWhereEmptiesTheTable(GreptimeTestServer server) throws Exception {
        HttpSql.newBuilder(server.httpEndpoint(), "public").build().execute("CREATE TABLE del_all"
                + " (host STRING, usage DOUBLE, ts TIMESTAMP(3) TIME INDEX, PRIMARY KEY (host))");
        LocalSpark.session().range(0, 6).selectExpr("IF(id % 2 = 0, 'a', 'b') AS host",
                "CAST(id AS DOUBLE) AS usage", "timestamp_millis(1704067200000 + id * 1000) AS ts")
                .writeTo("gtdelall.public.del_all").append();
        assertEquals(6, server.rowCount("del_all"));
        LocalSpark.session().sql("DELETE FROM gtdelall.public.del_all");
        assertEquals(0, server.rowCount("del_all"));
    }
}
