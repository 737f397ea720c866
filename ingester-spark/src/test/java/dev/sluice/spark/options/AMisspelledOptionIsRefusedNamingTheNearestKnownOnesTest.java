package dev.sluice.spark.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spark.Failures;
import dev.sluice.spark.LocalSpark;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An option the connector does not know (a misspelling such as {@code tag} for {@code tags}) is refused before
 * anything is sent, naming it and the known options nearest to it, instead of being ignored (which would create the
 * table without tags and collapse rows that differ only in the misspelled tag).
 */
class AMisspelledOptionIsRefusedNamingTheNearestKnownOnesTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @Test
    void tagForTagsIsRefusedNamingTagsAndNothingIsSent(GreptimeTestServer server) {
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql(
                "SELECT * FROM VALUES ('a', 1.0D, TIMESTAMP'2024-01-01 00:00:00'),"
                        + " ('b', 2.0D, TIMESTAMP'2024-01-01 00:00:00') AS t(host, v, ts)"),
                server, "typo", "append", "tag", "host"),
                () -> "stored rows: " + server.rows("typo"));
        String m = Failures.messages(e);
        assertTrue(m.contains("'tag'") && m.contains("tags"), m);
        assertEquals(requests, server.requestCount(), "no request was sent");
    }

    @Test
    void theKnownOptionsStillWriteWithAnyCase(GreptimeTestServer server) {
        LocalSpark.write(LocalSpark.session().sql(
                "SELECT * FROM VALUES ('a', 1.0D, TIMESTAMP'2024-01-01 00:00:00'),"
                        + " ('b', 2.0D, TIMESTAMP'2024-01-01 00:00:00') AS t(host, v, ts)"),
                server, "known", "append", "TAGS", "host", "batchrows", "10");
        assertEquals(2, server.rowCount("known"));
    }
}
