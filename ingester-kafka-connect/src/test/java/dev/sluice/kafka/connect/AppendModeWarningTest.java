package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.kafka.connect.internal.AppendModeCheck;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The connector asks the HTTP API about its tables at start; a stub answers as GreptimeDB's /v1/sql does. */
class AppendModeWarningTest {
    private HttpServer http;
    private final List<String> queries = new CopyOnWriteArrayList<>();
    private final List<String> auth = new CopyOnWriteArrayList<>();

    private static String answer(String table, String with) {
        // The shape of GreptimeDB's HTTP answer to SHOW CREATE TABLE (JSON-escaped DDL text).
        return "{\"output\":[{\"records\":{\"schema\":{\"column_schemas\":[{\"name\":\"Table\",\"data_type\":\"String\"},"
                + "{\"name\":\"Create Table\",\"data_type\":\"String\"}]},\"rows\":[[\"" + table + "\",\"CREATE TABLE IF"
                + " NOT EXISTS \\\"" + table + "\\\" (\\n  \\\"ts\\\" TIMESTAMP(3) NOT NULL,\\n  TIME INDEX (\\\"ts\\\")\\n)"
                + "\\n\\nENGINE=mito\\n" + with + "\"]],\"total_rows\":1}}],\"execution_time_ms\":1}";
    }

    @BeforeEach
    void startStub() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/v1/sql", ex -> {
            String body = URLDecoder.decode(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                    StandardCharsets.UTF_8);
            queries.add(ex.getRequestURI().getQuery() + " " + body);
            auth.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
            String out;
            int code = 200;
            if (body.contains("`logs`")) {
                out = answer("logs", "WITH(\\n  append_mode = 'true'\\n)");
            } else if (body.contains("`metrics`")) {
                out = answer("metrics", "");
            } else {
                code = 400;
                out = "{\"code\":4001,\"error\":\"Table not found\"}";
            }
            byte[] b = out.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(code, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
        http.start();
    }

    @AfterEach
    void stopStub() {
        http.stop(0);
    }

    private String url() {
        return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    @Test
    void theConnectorFindsAppendModeTablesAmongItsTopics() {
        GreptimeSinkConnector c = new GreptimeSinkConnector();
        c.start(Map.of(GreptimeSinkConfig.ENDPOINTS, "127.0.0.1:4001", GreptimeSinkConfig.HTTP_URL, url(),
                GreptimeSinkConfig.DATABASE, "obs", GreptimeSinkConfig.USERNAME, "u", GreptimeSinkConfig.PASSWORD, "p",
                "topics", "logs, metrics,missing"));
        assertEquals(List.of("logs"), c.appendModeTables());
        assertEquals(3, queries.size());
        assertEquals("db=obs sql=SHOW CREATE TABLE `logs`", queries.get(0));
        assertEquals("Basic dTpw", auth.get(0));
    }

    @Test
    void noUrlOrAnUnreachableServerMeansNoCheckAndNoFailure() {
        GreptimeSinkConnector c = new GreptimeSinkConnector();
        c.start(Map.of(GreptimeSinkConfig.ENDPOINTS, "127.0.0.1:4001", "topics", "logs"));
        assertEquals(List.of(), c.appendModeTables());
        assertEquals(0, queries.size());
        assertEquals(AppendModeCheck.Mode.UNKNOWN,
                new AppendModeCheck("http://127.0.0.1:1", "public", "", "").mode("logs"));
        assertEquals(AppendModeCheck.Mode.LAST_WRITE_WINS, new AppendModeCheck(url(), "public", "", "").mode("metrics"));
    }
}
