package dev.sluice.sql.appendmode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.sql.HttpSql;
import dev.sluice.sql.SqlException;
import dev.sluice.testkit.GreptimeTestServer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpSql#appendMode(String)}: credentials the server rejects (an unknown user, a wrong password) are errors,
 * never taken for a missing table; and a table created in append mode in another database than {@code public}
 * reads as such, while {@code public} has no such table.
 */
class AppendModeAnswersOnlyForTheTableAskedAboutTest {
    @Test
    void anUnknownUserIsAnErrorNotAMissingTable() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).user("admin", "secret").start()) {
            HttpSql admin = HttpSql.newBuilder(server.httpEndpoint(), "public").auth("admin", "secret").build();
            admin.execute("CREATE TABLE logs (host STRING, msg STRING, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))"
                    + " WITH (append_mode = 'true')");
            assertEquals(Optional.of(true), admin.appendMode("logs"));
            HttpSql stranger = HttpSql.newBuilder(server.httpEndpoint(), "public").auth("nobody", "secret").build();
            assertThrows(SqlException.class, () -> stranger.appendMode("logs"),
                    "an unknown user learns nothing, and is not told the table is missing");
            HttpSql wrong = HttpSql.newBuilder(server.httpEndpoint(), "public").auth("admin", "wrong").build();
            assertThrows(SqlException.class, () -> wrong.appendMode("logs"));
        }
    }

    @Test
    void anAppendModeTableOfAnotherDatabaseReadsAsAppendMode() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            server.createDatabase("metrics");
            HttpSql sql = HttpSql.newBuilder(server.httpEndpoint(), "metrics").build();
            sql.execute("CREATE TABLE logs (host STRING, msg STRING, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))"
                    + " WITH ('append_mode' = 'true')");
            assertEquals(Optional.of(true), sql.appendMode("logs"));
            HttpSql pub = HttpSql.newBuilder(server.httpEndpoint(), "public").build();
            assertEquals(Optional.empty(), pub.appendMode("logs"));
        }
    }
}
