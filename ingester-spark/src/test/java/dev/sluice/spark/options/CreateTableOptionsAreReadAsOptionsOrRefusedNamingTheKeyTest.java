package dev.sluice.spark.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.spark.Failures;
import dev.sluice.spark.GreptimeCatalog;
import dev.sluice.spark.LocalSpark;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A catalog's {@code CREATE TABLE ... OPTIONS (k = v)} reaches the connector as table properties {@code k} and
 * {@code option.k} (Spark passes both). A known option given there (a table option such as {@code ttl} or
 * {@code append_mode}, or {@code tags}) is used as it is from {@code TBLPROPERTIES}; an unknown one is refused before
 * anything is created, naming the key and the options nearest to it; and an {@code option.k} property whose value
 * differs from property {@code k} is refused, naming both.
 */
class CreateTableOptionsAreReadAsOptionsOrRefusedNamingTheKeyTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @BeforeAll
    static void register() {
        SparkSession s = LocalSpark.session();
        s.conf().set("spark.sql.catalog.opts", GreptimeCatalog.class.getName());
        s.conf().set("spark.sql.catalog.opts.endpoints", TESTKIT.server().endpoint());
        s.conf().set("spark.sql.catalog.opts.httpEndpoint", TESTKIT.server().httpEndpoint());
    }

    @Test
    void tableOptionsAndTagsGivenAsOptionsAreUsedWhenTheTableIsCreated(GreptimeTestServer server) {
        LocalSpark.session().sql("CREATE TABLE opts.public.from_options (host STRING, v DOUBLE, ts TIMESTAMP)"
                + " OPTIONS ('tags' = 'host', 'ttl' = '7d', 'append_mode' = 'true')");
        TableSchema s = server.schema("from_options");
        assertEquals(SemanticType.Tag, s.column(s.indexOf("host")).semanticType());
        Map<String, String> options = server.tableOptions("public", "from_options");
        assertTrue(options.containsKey("ttl") && "true".equals(options.get("append_mode")), options.toString());
    }

    @Test
    void aMisspelledOptionIsRefusedNamingTheKeyAsGivenAndTheNearestOptionAndNothingIsCreated(
            GreptimeTestServer server) {
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.session().sql("CREATE TABLE"
                + " opts.public.misspelled (host STRING, v DOUBLE, ts TIMESTAMP) OPTIONS ('tll' = '7d')"));
        String m = Failures.messages(e);
        assertTrue(m.contains("tll' ") && m.contains("is not an option") && m.contains("did you mean")
                && m.contains("'ttl'"), m);
        assertEquals(requests, server.requestCount(), "no request was sent");
        assertFalse(server.tables().contains("misspelled"), server.tables().toString());
    }

    @Test
    void anOptionPrefixedPropertyThatDisagreesWithTheOptionIsRefusedNamingBoth(GreptimeTestServer server) {
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.session().sql("CREATE TABLE"
                + " opts.public.twice (host STRING, v DOUBLE, ts TIMESTAMP)"
                + " TBLPROPERTIES ('option.ttl' = '1d', 'ttl' = '7d')"));
        String m = Failures.messages(e);
        assertTrue(m.contains("'option.ttl'") && m.contains("'ttl'") && m.contains("1d") && m.contains("7d"), m);
        assertEquals(requests, server.requestCount(), "no request was sent");
        assertFalse(server.tables().contains("twice"), server.tables().toString());
    }
}
