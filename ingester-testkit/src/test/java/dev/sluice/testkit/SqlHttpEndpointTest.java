package dev.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.SemanticType;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SqlHttpEndpointTest {
    static HttpResponse<String> sql(GreptimeTestServer s, String sql) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + s.httpEndpoint() + "/v1/sql?db=public"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void countsAndDropsTablesOverHttpLikeTheServer() throws Exception {
        try (GreptimeTestServer s = GreptimeTestServer.builder().httpPort(0).start()) {
            ManagedChannel ch = NettyChannelBuilder.forTarget(s.endpoint()).usePlaintext().build();
            try {
                GreptimeDatabaseGrpc.newBlockingStub(ch).handle(TestkitProtocolTest.insert("t",
                        List.of(TestkitProtocolTest.col("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP)),
                        TestkitProtocolTest.row(TestkitProtocolTest.ts(1)), TestkitProtocolTest.row(TestkitProtocolTest.ts(2))));
            } finally {
                ch.shutdownNow();
            }
            HttpResponse<String> count = sql(s, "SELECT count(*) FROM t");
            assertEquals(200, count.statusCode());
            assertTrue(count.body().contains("\"rows\":[[2]]"), count.body());
            assertEquals(200, sql(s, "DROP TABLE IF EXISTS t").statusCode());
            assertEquals(400, sql(s, "SELECT count(*) FROM t").statusCode());
            HttpResponse<String> other = sql(s, "SELECT * FROM t");
            assertEquals(400, other.statusCode());
            assertTrue(other.body().contains("1001"), other.body());
        }
    }
}
