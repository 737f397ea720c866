package dev.sluice.spark.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.spark.LocalSpark;
import dev.sluice.testkit.GreptimeTestServer;
import org.junit.jupiter.api.Test;

/**
 * Option 'connection' may name its user without a password ({@code greptimedb://user@host}), keeping the password in
 * option 'password', whose value Spark redacts by its name: that option sets nothing the string sets, so it is the
 * password the server sees, not a clash with the string.
 */
class APasswordOptionBesideAStringNamingOnlyItsUserAuthenticatesTest {
    @Test
    void thePasswordOptionAuthenticatesTheStringsUser() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().user("ingest", "Hunter2Secret").start()) {
            LocalSpark.session().sql("SELECT 'a' AS host, 1.0D AS v, TIMESTAMP'2024-01-01 00:00:00' AS ts").write()
                    .format("greptimedb").option("connection", "greptimedb://ingest@" + server.endpoint() + "/public")
                    .option("password", "Hunter2Secret").option("httpEndpoint", "none").option("table", "apart")
                    .option("tags", "host").mode("append").save();
            assertEquals(1, server.rowCount("apart"));
        }
    }
}
