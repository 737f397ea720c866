package dev.sluice.testkit.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.RowInsertRequest;
import dev.sluice.internal.wire.RowInsertRequests;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.internal.wire.Value;
import dev.sluice.testkit.GreptimeTestServer;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Values answered over {@code POST /v1/sql} as GreptimeDB 1.2 answers them, same statements on both: a DATE is a
 * number of days since 1970-01-01, dates and times before 1582-10-15 stay in the proleptic Gregorian calendar,
 * -0.0 keeps its sign, a non-finite float is JSON null, and a column's type comes from the table the query reads.
 * The JSON values follow {@code TryFrom<Value> for serde_json::Value} in src/datatypes/src/value.rs (GreptimeTeam/
 * greptimedb): {@code Value::Date(v) => Number(v.val())}, floats through {@code serde_json::Value::from(f64)},
 * which is {@code Null} for NaN and the infinities.
 */
class SqlAnswersFollowTheServerTest {
    GreptimeTestServer server;
    ManagedChannel channel;

    @BeforeEach
    void up() {
        server = GreptimeTestServer.builder().httpPort(0).start();
        channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
    }

    @AfterEach
    void down() {
        channel.shutdownNow();
        server.close();
    }

    HttpResponse<String> sql(String db, String statement) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + server.httpEndpoint() + "/v1/sql?db=" + db))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(statement, StandardCharsets.UTF_8)))
                .build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Runs a statement that must succeed; the answer must be strict JSON, as serde_json writes it. */
    JsonObject ok(String db, String statement) throws Exception {
        HttpResponse<String> r = sql(db, statement);
        assertEquals(200, r.statusCode(), statement + " -> " + r.body());
        JsonReader strict = new JsonReader(new StringReader(r.body()));
        strict.setStrictness(Strictness.STRICT);
        return JsonParser.parseReader(strict).getAsJsonObject().getAsJsonArray("output").get(0).getAsJsonObject();
    }

    JsonArray rows(String statement) throws Exception {
        return ok("public", statement).getAsJsonObject("records").getAsJsonArray("rows");
    }

    void write(String table, ColumnSchema field, Value value, long ts) {
        ColumnSchema time = ColumnSchema.newBuilder().setColumnName("ts").setDatatype(ColumnDataType.TIMESTAMP_MILLISECOND)
                .setSemanticType(SemanticType.TIMESTAMP).build();
        GreptimeRequest request = GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setRowInserts(RowInsertRequests.newBuilder().addInserts(RowInsertRequest.newBuilder().setTableName(table)
                        .setRows(Rows.newBuilder().addSchema(field).addSchema(time).addRows(Row.newBuilder()
                                .addValues(value).addValues(Value.newBuilder().setTimestampMillisecondValue(ts))))))
                .build();
        GreptimeDatabaseGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS).handle(request);
    }

    static ColumnSchema field(String name, ColumnDataType type) {
        return ColumnSchema.newBuilder().setColumnName(name).setDatatype(type).setSemanticType(SemanticType.FIELD).build();
    }

    @Test
    void aDateIsAnsweredAsDaysSinceTheEpoch() throws Exception {
        ok("public", "CREATE TABLE d (ts TIMESTAMP TIME INDEX, d DATE)");
        ok("public", "INSERT INTO d VALUES (1, '2020-01-01')");
        assertEquals(18262, rows("SELECT d FROM d").get(0).getAsJsonArray().get(0).getAsLong());
    }

    @Test
    void datesBeforeTheGregorianReformStayProleptic() throws Exception {
        ok("public", "CREATE TABLE d (ts TIMESTAMP TIME INDEX, d DATE)");
        ok("public", "INSERT INTO d VALUES (1, '1500-03-01')");
        assertEquals(LocalDate.of(1500, 3, 1), server.rows("d").get(0).get("d"));
        assertEquals(-171605, rows("SELECT d FROM d").get(0).getAsJsonArray().get(0).getAsLong());
    }

    @Test
    void timestampsBeforeTheGregorianReformStayProleptic() throws Exception {
        ok("public", "CREATE TABLE t (ts TIMESTAMP(3) TIME INDEX, v BIGINT)");
        ok("public", "INSERT INTO t VALUES ('1200-06-01 00:00:00', 1)");
        assertEquals(-24285744000000L, server.rows("t").get(0).get("ts"));
        assertEquals(-24285744000000L, rows("SELECT ts FROM t").get(0).getAsJsonArray().get(0).getAsLong());
    }

    @Test
    void oldDatesAndTimesWrittenOverGrpcReadBackUnshifted() throws Exception {
        write("g", field("d", ColumnDataType.DATE), Value.newBuilder().setDateValue(-171605).build(), -24285744000000L);
        JsonArray row = rows("SELECT d, ts FROM g").get(0).getAsJsonArray();
        assertEquals(-171605, row.get(0).getAsLong());
        assertEquals(-24285744000000L, row.get(1).getAsLong());
    }

    @Test
    void negativeZeroKeepsItsSign() throws Exception {
        write("z", field("v", ColumnDataType.FLOAT64), Value.newBuilder().setF64Value(-0.0).build(), 1);
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits((Double) server.rows("z").get(0).get("v")));
        HttpResponse<String> r = sql("public", "SELECT v FROM z");
        assertTrue(r.body().contains("[[-0.0]]"), r.body());
        ok("public", "INSERT INTO z (ts, v) VALUES (2, -0.0)");
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits((Double) server.rows("z").get(1).get("v")));
        HttpResponse<String> both = sql("public", "SELECT v FROM z ORDER BY ts");
        assertTrue(both.body().contains("[[-0.0],[-0.0]]"), both.body());
    }

    @Test
    void aNanCastInAnInsertIsStoredAndAnsweredAsNull() throws Exception {
        ok("public", "CREATE TABLE n (ts TIMESTAMP TIME INDEX, v DOUBLE)");
        assertEquals(1, ok("public", "INSERT INTO n VALUES (1, CAST('NaN' AS DOUBLE))").get("affectedrows").getAsInt());
        assertTrue(Double.isNaN((Double) server.rows("n").get(0).get("v")));
        assertTrue(rows("SELECT v FROM n").get(0).getAsJsonArray().get(0).isJsonNull());
    }

    @Test
    void nonFiniteFloatsWrittenOverGrpcAreAnsweredAsNull() throws Exception {
        write("f", field("v", ColumnDataType.FLOAT64), Value.newBuilder().setF64Value(Double.NaN).build(), 1);
        write("f", field("v", ColumnDataType.FLOAT64), Value.newBuilder().setF64Value(Double.POSITIVE_INFINITY).build(), 2);
        write("f", field("v", ColumnDataType.FLOAT64), Value.newBuilder().setF64Value(Double.NEGATIVE_INFINITY).build(), 3);
        write("f32", field("v", ColumnDataType.FLOAT32), Value.newBuilder().setF32Value(Float.NaN).build(), 1);
        JsonArray got = rows("SELECT v FROM f ORDER BY ts");
        assertEquals(3, got.size());
        for (int i = 0; i < 3; i++) {
            assertTrue(got.get(i).getAsJsonArray().get(0).isJsonNull(), got.toString());
        }
        assertTrue(rows("SELECT v FROM f32").get(0).getAsJsonArray().get(0).isJsonNull());
    }

    @Test
    void aColumnsTypeComesFromTheTableOfTheQuerysDatabase() throws Exception {
        ok("public", "CREATE DATABASE other");
        ok("public", "CREATE TABLE same (ts TIMESTAMP TIME INDEX, v BIGINT)");
        ok("other", "CREATE TABLE same (ts TIMESTAMP TIME INDEX, v DOUBLE)");
        ok("other", "INSERT INTO same VALUES (1, 1.5)");
        JsonObject records = ok("other", "SELECT v FROM same").getAsJsonObject("records");
        assertEquals("Float64", records.getAsJsonObject("schema").getAsJsonArray("column_schemas").get(0)
                .getAsJsonObject().get("data_type").getAsString());
        assertEquals(1.5, records.getAsJsonArray("rows").get(0).getAsJsonArray().get(0).getAsDouble());
        JsonObject qualified = ok("other", "SELECT v FROM public.same").getAsJsonObject("records");
        assertEquals("Int64", qualified.getAsJsonObject("schema").getAsJsonArray("column_schemas").get(0)
                .getAsJsonObject().get("data_type").getAsString());
        assertFalse(qualified.getAsJsonArray("rows").size() > 0);
    }
}
