package dev.sluice.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The HTTP SQL client against the testkit's {@code /v1/sql}, which answers as GreptimeDB's does. */
class HttpSqlTest {
    @Test
    void describesAnExistingTableWithItsTypesAndRolesAndCountsItsRows() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            HttpSql sql = HttpSql.newBuilder(server.httpEndpoint(), "public").build();
            sql.execute("CREATE TABLE m (host STRING, region STRING, v DOUBLE, n BIGINT, price DECIMAL(10, 2),"
                    + " ok BOOLEAN, ts TIMESTAMP(6) TIME INDEX, PRIMARY KEY (host, region))");
            sql.execute("INSERT INTO m (host, region, v, n, price, ok, ts) VALUES ('a', 'r', 1.5, 2, 3.25, true, 1),"
                    + " ('b', 'r', 2.5, 3, 4.5, false, 2)");
            List<ServerColumn> cols = sql.describeTable("m").orElseThrow();
            assertEquals(List.of("host", "region", "v", "n", "price", "ok", "ts"),
                    cols.stream().map(ServerColumn::name).toList());
            assertEquals(List.of(DataType.String, DataType.String, DataType.Float64, DataType.Int64,
                            DataType.Decimal128, DataType.Bool, DataType.TimestampMicrosecond),
                    cols.stream().map(ServerColumn::type).toList());
            assertEquals(List.of(SemanticType.Tag, SemanticType.Tag, SemanticType.Field, SemanticType.Field,
                            SemanticType.Field, SemanticType.Field, SemanticType.Timestamp),
                    cols.stream().map(ServerColumn::semantic).toList());
            assertEquals(new DecimalType(10, 2), cols.get(4).decimal());
            TableSchema schema = sql.describeSchema("m").orElseThrow();
            assertEquals(7, schema.columns().size());
            assertEquals(2, sql.count("m"));
        }
    }

    @Test
    void aTableThatDoesNotExistIsEmptyNotAnError() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            HttpSql sql = HttpSql.newBuilder(server.httpEndpoint(), "public").build();
            assertEquals(Optional.empty(), sql.describeTable("nowhere"));
            assertEquals(Optional.empty(), sql.describeSchema("nowhere"));
        }
    }

    @Test
    void aStatementTheServerRefusesKeepsItsCodeAndMessage() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            HttpSql sql = HttpSql.newBuilder(server.httpEndpoint(), "public").build();
            SqlException e = assertThrows(SqlException.class, () -> sql.execute("SELEKT 1"));
            assertTrue(e.code() > 0, "the server's code is kept: " + e.code() + " " + e.getMessage());
            assertTrue(e.getMessage().contains("SELEKT 1"), e.getMessage());
        }
    }

    @Test
    void nothingListeningSaysSoAndNamesTheEndpoint() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        HttpSql sql = HttpSql.newBuilder("127.0.0.1:" + port, "public").build();
        SqlException e = assertThrows(SqlException.class, () -> sql.describeTable("m"));
        assertEquals(-1, e.code());
        assertTrue(e.getMessage().contains("127.0.0.1:" + port) && e.getMessage().contains("no connection"),
                e.getMessage());
    }

    @Test
    void readsTheServersTypeNames() {
        ServerColumn d = ServerColumn.of("p", "Decimal(38, 10)", "FIELD");
        assertEquals(DataType.Decimal128, d.type());
        assertEquals(new DecimalType(38, 10), d.decimal());
        ServerColumn v = ServerColumn.of("e", "Vector(3)", "FIELD");
        assertEquals(DataType.Vector, v.type());
        assertEquals(3, v.vector().dim());
        assertEquals(DataType.Bool, ServerColumn.of("b", "Boolean", null).type());
        assertEquals(DataType.TimestampNanosecond, ServerColumn.of("t", "TimestampNanosecond", "TIMESTAMP").type());
        assertEquals(SemanticType.Timestamp, ServerColumn.of("t", "TimestampNanosecond", "TIMESTAMP").semantic());
        assertEquals(SemanticType.Tag, ServerColumn.of("h", "String", "TAG").semantic());
        ServerColumn unknown = ServerColumn.of("x", "Interval", "FIELD");
        assertNull(unknown.type());
        assertEquals("Interval", unknown.typeName());
    }

    @Test
    void anErrorAnswerKeepsTheServersCodeAndAnAnswerThatIsNotGreptimeDbsSaysSo() {
        SqlException auth = assertThrows(SqlException.class,
                () -> HttpSql.parse(401, "{\"code\":7002,\"error\":\"auth failed\"}", "DESC TABLE t"));
        assertEquals(7002, auth.code());
        assertEquals("DESC TABLE t: auth failed (code 7002)", auth.getMessage());
        SqlException html = assertThrows(SqlException.class, () -> HttpSql.parse(404, "<html>not found</html>", "x"));
        assertEquals(-1, html.code());
        assertTrue(html.getMessage().contains("is this GreptimeDB's HTTP port?"), html.getMessage());
    }
}
