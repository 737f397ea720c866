package dev.sluice.sql.appendmode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.sql.HttpSql;
import dev.sluice.sql.SqlException;
import dev.sluice.testkit.GreptimeTestServer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link HttpSql#appendMode(String)} reads a table's append mode from the server's {@code SHOW CREATE TABLE}. */
class WhetherATableKeepsEveryRowTest {
    @Test
    void anAppendModeTableKeepsEveryRowAndAnOrdinaryOneDoesNot() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            HttpSql sql = HttpSql.newBuilder(server.httpEndpoint(), "public").build();
            sql.execute("CREATE TABLE logs (host STRING, msg STRING, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))"
                    + " WITH (append_mode = 'true')");
            sql.execute("CREATE TABLE cpu (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))");
            sql.execute("CREATE TABLE off (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))"
                    + " WITH (append_mode = 'false')");
            assertEquals(Optional.of(true), sql.appendMode("logs"));
            assertEquals(Optional.of(false), sql.appendMode("cpu"));
            assertEquals(Optional.of(false), sql.appendMode("off"));
        }
    }

    @Test
    void aMissingTableHasNoModeAndAnUnreachableServerIsAnError() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            HttpSql sql = HttpSql.newBuilder(server.httpEndpoint(), "public").build();
            assertEquals(Optional.empty(), sql.appendMode("nowhere"));
        }
        HttpSql away = HttpSql.newBuilder("127.0.0.1:1", "public").build();
        assertThrows(SqlException.class, () -> away.appendMode("logs"));
    }
}
