package dev.sluice.sql.appendmode;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.sql.HttpSql;
import dev.sluice.sql.SqlException;
import dev.sluice.testkit.GreptimeTestServer;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpSql#appendMode(String)} answers "no such table" (empty) only for a missing table: asked in a database
 * that does not exist, it throws, as for any other error, instead of taking the server's "Database not found" for
 * a missing table.
 */
class AMissingDatabaseIsAnErrorNotAMissingTableTest {
    @Test
    void aMissingDatabaseIsAnErrorNotAMissingTable() {
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            HttpSql sql = HttpSql.newBuilder(server.httpEndpoint(), "nowhere").build();
            assertThrows(SqlException.class, () -> sql.appendMode("logs"),
                    "a database that does not exist says nothing about a table in it");
        }
    }
}
