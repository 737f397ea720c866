package dev.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The HTTP SQL API: GreptimeDB's DDL, queries through an embedded engine, the server's JSON shape, auth. */
class SqlHttpEndpointTest {
    static HttpResponse<String> sql(GreptimeTestServer s, String sql) throws Exception {
        return sql(s, "public", sql, null);
    }

    static HttpResponse<String> sql(GreptimeTestServer s, String db, String sql, String auth) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + s.httpEndpoint() + "/v1/sql?db=" + db))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonArray rows(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
        return JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonArray("output").get(0).getAsJsonObject()
                .getAsJsonObject("records").getAsJsonArray("rows");
    }

    static void insertTwoRows(GreptimeTestServer s) {
        ManagedChannel ch = NettyChannelBuilder.forTarget(s.endpoint()).usePlaintext().build();
        try {
            GreptimeDatabaseGrpc.newBlockingStub(ch).handle(TestkitProtocolTest.insert("t",
                    List.of(TestkitProtocolTest.col("ts", ColumnDataType.TIMESTAMP_MILLISECOND,
                            dev.sluice.internal.wire.SemanticType.TIMESTAMP)),
                    TestkitProtocolTest.row(TestkitProtocolTest.ts(1)), TestkitProtocolTest.row(TestkitProtocolTest.ts(2))));
        } finally {
            ch.shutdownNow();
        }
    }

    @Test
    void countsAndDropsTablesOverHttpLikeTheServer() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).start()) {
            insertTwoRows(s);
            HttpResponse<String> count = sql(s, "SELECT count(*) FROM t");
            assertEquals(200, count.statusCode());
            assertTrue(count.body().contains("\"rows\":[[2]]"), count.body());
            assertEquals(200, sql(s, "DROP TABLE IF EXISTS t").statusCode());
            HttpResponse<String> gone = sql(s, "SELECT * FROM t");
            assertEquals(400, gone.statusCode());
            assertEquals("4001", gone.headers().firstValue("x-greptime-err-code").orElse(null));
            assertEquals(4001, JsonParser.parseString(gone.body()).getAsJsonObject().get("code").getAsInt());
        }
    }

    @Test
    void greptimeDdlCreatesTablesAndDatabases() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).start()) {
            HttpResponse<String> created = sql(s, "CREATE TABLE IF NOT EXISTS cpu (\n  host STRING,\n  region STRING NULL,\n"
                    + "  usage DOUBLE DEFAULT 0 COMMENT 'percent',\n  cores INT UNSIGNED,\n  price DECIMAL(10, 2),\n"
                    + "  ts TIMESTAMP(3) NOT NULL,\n  TIME INDEX (ts),\n  PRIMARY KEY (host, region)\n)"
                    + " ENGINE=mito WITH(ttl='7d', append_mode='false', 'compaction.twcs.time_window'='1h');");
            assertEquals(200, created.statusCode(), created.body());
            assertTrue(created.body().contains("\"affectedrows\":0"), created.body());
            assertEquals(List.of("host", "region", "usage", "cores", "price", "ts"),
                    s.schema("cpu").columns().stream().map(dev.sluice.data.TableSchema.Column::name).toList());
            assertEquals(SemanticType.Tag, s.schema("cpu").columns().get(1).semanticType());
            assertEquals(DataType.UInt32, s.schema("cpu").columns().get(3).dataType());
            assertEquals(new dev.sluice.data.DecimalType(10, 2), s.schema("cpu").columns().get(4).decimalType());
            assertEquals(SemanticType.Timestamp, s.schema("cpu").columns().get(5).semanticType());
            assertEquals("7days", s.tableOptions("public", "cpu").get("ttl"));
            assertEquals("1h", s.tableOptions("public", "cpu").get("compaction.twcs.time_window"));

            assertEquals(200, sql(s, "CREATE DATABASE metrics").statusCode());
            assertEquals(400, sql(s, "CREATE DATABASE metrics").statusCode());
            assertEquals(200, sql(s, "CREATE TABLE metrics.m (ts TIMESTAMP TIME INDEX, v DOUBLE)").statusCode());
            assertEquals(List.of("m"), s.tables("metrics"));
            assertEquals("m", rows(sql(s, "metrics", "SHOW TABLES", null)).get(0).getAsJsonArray().get(0).getAsString());

            JsonArray desc = rows(sql(s, "DESC TABLE cpu"));
            assertEquals("[\"host\",\"String\",\"PRI\",\"YES\",\"\",\"TAG\"]", desc.get(0).toString());
            assertEquals("[\"ts\",\"TimestampMillisecond\",\"TIME INDEX\",\"NO\",\"\",\"TIMESTAMP\"]", desc.get(5).toString());

            HttpResponse<String> noDb = sql(s, "nodb", "SHOW TABLES", null);
            assertEquals(400, noDb.statusCode());
            assertEquals("4004", noDb.headers().firstValue("x-greptime-err-code").orElse(null));

            HttpResponse<String> dup = sql(s, "CREATE TABLE cpu (ts TIMESTAMP TIME INDEX)");
            assertEquals(400, dup.statusCode());
            assertEquals("4000", dup.headers().firstValue("x-greptime-err-code").orElse(null));
        }
    }

    @Test
    void selectsRunOnAnEmbeddedSqlEngine() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).start()) {
            sql(s, "CREATE TABLE cpu (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY(host))");
            ManagedChannel ch = NettyChannelBuilder.forTarget(s.endpoint()).usePlaintext().build();
            try {
                var host = TestkitProtocolTest.HOST;
                var v = TestkitProtocolTest.col("v", ColumnDataType.FLOAT64, dev.sluice.internal.wire.SemanticType.FIELD);
                var ts = TestkitProtocolTest.TS;
                GreptimeDatabaseGrpc.newBlockingStub(ch).handle(TestkitProtocolTest.insert("cpu", List.of(host, v, ts),
                        TestkitProtocolTest.row(TestkitProtocolTest.s("a"), TestkitProtocolTest.f(1.5), TestkitProtocolTest.ts(1_000)),
                        TestkitProtocolTest.row(TestkitProtocolTest.s("a"), TestkitProtocolTest.f(2.5), TestkitProtocolTest.ts(2_000)),
                        TestkitProtocolTest.row(TestkitProtocolTest.s("b"), TestkitProtocolTest.f(10.0), TestkitProtocolTest.ts(1_000))));
            } finally {
                ch.shutdownNow();
            }
            assertEquals("[[\"a\",2.5,2000],[\"a\",1.5,1000]]",
                    rows(sql(s, "SELECT host, v, ts FROM public.cpu WHERE host = 'a' ORDER BY ts DESC LIMIT 5")).toString());
            assertEquals("[[\"a\",2,1.5,2.5,4.0,2.0],[\"b\",1,10.0,10.0,10.0,10.0]]", rows(sql(s,
                    "SELECT host, count(*), min(v), max(v), sum(v), avg(v) FROM cpu GROUP BY host ORDER BY host")).toString());
            assertEquals("[[1]]", rows(sql(s, "SELECT count(*) FROM cpu WHERE ts >= '1970-01-01 00:00:02'")).toString());
            HttpResponse<String> select = sql(s, "SELECT ts FROM cpu ORDER BY ts LIMIT 1");
            JsonObject schema = JsonParser.parseString(select.body()).getAsJsonObject().getAsJsonArray("output").get(0)
                    .getAsJsonObject().getAsJsonObject("records").getAsJsonObject("schema");
            assertEquals("TimestampMillisecond", schema.getAsJsonArray("column_schemas").get(0).getAsJsonObject()
                    .get("data_type").getAsString());

            assertEquals(200, sql(s, "TRUNCATE TABLE cpu").statusCode());
            assertEquals("[[0]]", rows(sql(s, "SELECT count(*) FROM cpu")).toString());
            HttpResponse<String> bad = sql(s, "SELECT nosuchcolumn FROM cpu");
            assertEquals(400, bad.statusCode());
            assertEquals("3000", bad.headers().firstValue("x-greptime-err-code").orElse(null));
        }
    }

    @Test
    void httpNeedsBasicAuthWhenUsersAreConfigured() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).user("u", "p").start()) {
            String good = "Basic " + Base64.getEncoder().encodeToString("u:p".getBytes(StandardCharsets.UTF_8));
            String wrong = "Basic " + Base64.getEncoder().encodeToString("u:x".getBytes(StandardCharsets.UTF_8));
            String nobody = "Basic " + Base64.getEncoder().encodeToString("v:p".getBytes(StandardCharsets.UTF_8));
            for (String[] c : new String[][] {{null, "7003"}, {wrong, "7002"}, {nobody, "7000"}}) {
                HttpResponse<String> r = sql(s, "public", "SHOW TABLES", c[0]);
                assertEquals(401, r.statusCode(), r.body());
                assertEquals(c[1], r.headers().firstValue("x-greptime-err-code").orElse(null));
                assertEquals(Integer.parseInt(c[1]), JsonParser.parseString(r.body()).getAsJsonObject().get("code").getAsInt());
            }
            assertEquals(200, sql(s, "public", "SHOW TABLES", good).statusCode());
        }
    }
}
