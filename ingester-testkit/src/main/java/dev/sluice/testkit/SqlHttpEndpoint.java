package dev.sluice.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.testkit.internal.Storage;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The slice of GreptimeDB's HTTP API that tools use to check what was written: {@code GET /health}, and
 * {@code POST /v1/sql} with {@code SELECT count(*) FROM t} or {@code DROP TABLE [IF EXISTS] t}. Anything else
 * answers 400 with code 1001 (Unsupported).
 */
final class SqlHttpEndpoint {
    private static final Pattern COUNT = Pattern.compile("(?i)\\s*select\\s+count\\(\\s*\\*\\s*\\)\\s+from\\s+([\\w.:@#-]+)\\s*;?\\s*");
    private static final Pattern DROP = Pattern.compile("(?i)\\s*drop\\s+table\\s+(if\\s+exists\\s+)?([\\w.:@#-]+)\\s*;?\\s*");

    private final HttpServer server;

    SqlHttpEndpoint(String host, int port, Storage storage) throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, port), 0);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "testkit-http");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/health", ex -> answer(ex, 200, "{}"));
        server.createContext("/v1/sql", ex -> sql(ex, storage));
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private static void sql(HttpExchange ex, Storage storage) throws IOException {
        String db = "public";
        String query = ex.getRequestURI().getRawQuery();
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String sql = null;
        for (String source : new String[] {query, body}) {
            if (source == null) {
                continue;
            }
            for (String pair : source.split("&")) {
                int eq = pair.indexOf('=');
                if (eq < 0) {
                    continue;
                }
                String k = URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8);
                String v = URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                if (k.equals("db")) {
                    db = v;
                } else if (k.equals("sql")) {
                    sql = v;
                }
            }
        }
        if (sql == null) {
            answer(ex, 400, "{\"code\":1004,\"error\":\"sql parameter is required\"}");
            return;
        }
        Matcher count = COUNT.matcher(sql);
        Matcher drop = DROP.matcher(sql);
        if (count.matches()) {
            String table = count.group(1);
            if (!storage.tables(db).contains(table)) {
                answer(ex, 400, "{\"code\":4001,\"error\":\"Table not found: greptime." + db + "." + table + "\"}");
                return;
            }
            answer(ex, 200, "{\"output\":[{\"records\":{\"schema\":{\"column_schemas\":[{\"name\":\"count(*)\","
                    + "\"data_type\":\"Int64\"}]},\"rows\":[[" + storage.rowCount(db, table) + "]],\"total_rows\":1}}],"
                    + "\"execution_time_ms\":0}");
        } else if (drop.matches()) {
            boolean existed = storage.dropTable(db, drop.group(2));
            if (!existed && drop.group(1) == null) {
                answer(ex, 400, "{\"code\":4001,\"error\":\"Table not found: " + drop.group(2) + "\"}");
                return;
            }
            answer(ex, 200, "{\"output\":[{\"affectedrows\":0}],\"execution_time_ms\":0}");
        } else {
            answer(ex, 400, "{\"code\":1001,\"error\":\"the Sluice testkit answers only SELECT count(*) FROM t and"
                    + " DROP TABLE over HTTP, not: " + sql.replace("\"", "'").toLowerCase(Locale.ROOT) + "\"}");
        }
    }

    private static void answer(HttpExchange ex, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    void close() {
        server.stop(0);
    }
}
