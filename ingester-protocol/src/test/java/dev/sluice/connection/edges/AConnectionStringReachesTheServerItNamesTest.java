package dev.sluice.connection.edges;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.GreptimeDB;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * What the string names is what the client uses: an IPv6 host in brackets, a percent-encoded user and password
 * holding the URL's own separators, the database of its path, the password kept apart in a property (which wins
 * over the variable), and a rejected password that never shows up in the error.
 */
class AConnectionStringReachesTheServerItNamesTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private static Result<WriteOk, Err> writeOne(ConnectionConfig c, String host) {
        GreptimeDB db = GreptimeDB.create(c.options());
        try {
            return db.write(List.of(Table.from(CPU).addRow(host, 1.0, 1_700_000_000_000L)),
                    dev.sluice.write.WriteOp.Insert, c.context()).join();
        } finally {
            db.shutdownGracefully();
        }
    }

    @Test
    void anIpv6HostInBracketsIsReachedAndItsRowsStored() {
        try (GreptimeTestServer server = GreptimeTestServer.builder().host("::1").start()) {
            ConnectionConfig c = ConnectionConfig.parse("greptimedb://[::1]:" + server.port() + "/public");
            Result<WriteOk, Err> r = writeOne(c, "v6");
            assertTrue(r.isOk(), String.valueOf(r));
            assertEquals("v6", server.rows("cpu").get(0).get("host"));
        }
    }

    @Test
    void aPercentEncodedUserAndPasswordAuthenticateAndTheirDatabaseHoldsTheRows() {
        String user = "in:gest@team";
        String password = "p@ss:w/rd?#&=%+ü";
        try (GreptimeTestServer server = GreptimeTestServer.builder().user(user, password).start()) {
            server.createDatabase("my db");
            ConnectionConfig c = ConnectionConfig.parse("greptimedb://in%3Agest%40team:p%40ss%3Aw%2Frd%3F%23%26%3D%25+%C3%BC@"
                    + server.endpoint() + "/my%20db?batch_rows=1");
            try (GreptimeDB db = GreptimeDB.create(c.options())) {
                try (BatchingWriter w = db.batchingWriter(c.batching(), c.context())) {
                    w.write(CPU, "enc", 2.0, 1_700_000_000_000L);
                    w.flushOrThrow(Duration.ofSeconds(30));
                }
            }
            assertEquals(1, server.rowCount("my db", "cpu"));
            assertEquals(0, server.rowCount("cpu"), "nothing went to public");
        }
    }

    @Test
    void thePasswordPropertyWinsOverThePasswordVariable() {
        try (GreptimeTestServer server = GreptimeTestServer.builder().user("ingest", "right").start()) {
            Properties props = new Properties();
            props.setProperty(ConnectionConfig.PASSWORD_PROPERTY, "right");
            ConnectionConfig c = ConnectionConfig.fromEnvironment(Map.of(
                    ConnectionConfig.VARIABLE, "greptimedb://ingest@" + server.endpoint(),
                    ConnectionConfig.PASSWORD_VARIABLE, "wrong"), props);
            Result<WriteOk, Err> r = writeOne(c, "prop");
            assertTrue(r.isOk(), String.valueOf(r));
            assertEquals(1, server.rowCount("cpu"));
        }
    }

    @Test
    void aRejectedPasswordIsASetupErrorThatNeverShowsThePassword() {
        try (GreptimeTestServer server = GreptimeTestServer.builder().user("ingest", "right").start()) {
            ConnectionConfig c = ConnectionConfig.parse("greptimedb://ingest:Wr0ngPassw0rd@" + server.endpoint()
                    + "?retry_attempts=1");
            Result<WriteOk, Err> r = writeOne(c, "x");
            assertFalse(r.isOk());
            Err err = r.getErr();
            assertEquals(ErrorKind.Setup, err.kind(), err.toString());
            assertFalse(err.toString().contains("Wr0ngPassw0rd"), err.toString());
            assertFalse(c.toString().contains("Wr0ngPassw0rd"), c.toString());
            assertEquals(0, server.rowCount("cpu"));
        }
    }
}
