package dev.sluice.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.sluice.write.StatusCode;
import dev.sluice.testkit.internal.DbString;
import dev.sluice.testkit.internal.ServerError;
import dev.sluice.testkit.internal.SqlService;
import dev.sluice.testkit.internal.Storage;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * GreptimeDB's HTTP SQL API as the testkit serves it: {@code GET /health}, and {@code POST|GET /v1/sql} with
 * {@code sql} (form or query) and an optional {@code db} ({@code ?db=} or form; {@code catalog-schema} allowed).
 * Statements run through {@link SqlService}. With users configured, every SQL call needs HTTP basic auth, and a
 * failure answers 401 with 7003 (no header), 7002 (wrong password) or 7000 (unknown user), as the server does.
 * Answers use the server's JSON shape; errors are {@code {"code":..,"error":..,"execution_time_ms":..}} with the
 * {@code x-greptime-err-code} header, and HTTP 400 for request errors, 401 for auth, 500 otherwise
 * (src/servers/src/http/result/error_result.rs, status_code_to_http_status).
 */
final class SqlHttpEndpoint {
    private final HttpServer server;

    SqlHttpEndpoint(String host, int port, Storage storage, RequestProcessor auth) throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, port), 0);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "testkit-http");
            t.setDaemon(true);
            return t;
        }));
        SqlService sql = new SqlService(storage);
        server.createContext("/health", ex -> answer(ex, 200, "{}", null));
        server.createContext("/v1/sql", ex -> {
            long started = System.nanoTime();
            try {
                sql(ex, sql, auth, started);
            } catch (ServerError e) {
                error(ex, e, started);
            } catch (RuntimeException e) {
                error(ex, new ServerError(StatusCode.Internal, "Internal error: " + e), started);
            }
        });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private static void sql(HttpExchange ex, SqlService service, RequestProcessor auth, long started) throws IOException {
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
        checkAuth(ex, auth);
        // ?db= goes through the same parser as gRPC's dbname: split at the first '-', lowercased (DbString).
        DbString parsed = DbString.parse(db);
        if (!parsed.defaultCatalog()) {
            throw new ServerError(StatusCode.DatabaseNotFound, "Database not found: " + db);
        }
        db = parsed.schema();
        if (sql == null || sql.isBlank()) {
            throw new ServerError(StatusCode.InvalidArguments, "sql parameter is required.");
        }
        SqlService.Result r = service.execute(db, sql);
        JsonObject out = new JsonObject();
        if (r.affectedRows() != null) {
            out.addProperty("affectedrows", r.affectedRows());
        } else {
            JsonArray schemas = new JsonArray();
            for (int i = 0; i < r.names().size(); i++) {
                JsonObject c = new JsonObject();
                c.addProperty("name", r.names().get(i));
                c.addProperty("data_type", r.types().get(i));
                schemas.add(c);
            }
            JsonArray rows = new JsonArray();
            for (List<Object> row : r.rows()) {
                JsonArray line = new JsonArray();
                for (Object v : row) {
                    line.add(json(v));
                }
                rows.add(line);
            }
            JsonObject schema = new JsonObject();
            schema.add("column_schemas", schemas);
            JsonObject records = new JsonObject();
            records.add("schema", schema);
            records.add("rows", rows);
            records.addProperty("total_rows", r.rows().size());
            out.add("records", records);
        }
        JsonArray output = new JsonArray();
        output.add(out);
        JsonObject answer = new JsonObject();
        answer.add("output", output);
        answer.addProperty("execution_time_ms", (System.nanoTime() - started) / 1_000_000);
        answer(ex, 200, answer.toString(), null);
    }

    private static JsonElement json(Object v) {
        if (v == null) {
            return JsonNull.INSTANCE;
        }
        if (v instanceof Boolean) {
            return new JsonPrimitive((Boolean) v);
        }
        if (v instanceof java.math.BigDecimal) {
            return new JsonPrimitive(v.toString()); // decimals are strings in GreptimeDB's JSON
        }
        if ((v instanceof Double d && !Double.isFinite(d)) || (v instanceof Float f && !Float.isFinite(f))) {
            // serde_json::Value::from(f64) is Null for NaN and the infinities (src/datatypes/src/value.rs turns
            // a float into JSON that way), so the server answers null where a bare NaN would not be JSON.
            return JsonNull.INSTANCE;
        }
        if (v instanceof Number) {
            return new JsonPrimitive((Number) v);
        }
        if (v instanceof byte[]) {
            JsonArray a = new JsonArray();
            for (byte b : (byte[]) v) {
                a.add(b & 0xFF);
            }
            return a;
        }
        return new JsonPrimitive(v.toString());
    }

    /** HTTP basic auth against the server's users (only when it has some). */
    private static void checkAuth(HttpExchange ex, RequestProcessor auth) {
        if (!auth.authRequired()) {
            return;
        }
        String header = ex.getRequestHeaders().getFirst("Authorization");
        if (header == null) {
            throw new ServerError(StatusCode.AuthHeaderNotFound, "Not found http or grpc authorization header");
        }
        if (!header.regionMatches(true, 0, "Basic ", 0, 6)) {
            throw new ServerError(StatusCode.InvalidAuthHeader, "Invalid authorization header");
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new ServerError(StatusCode.InvalidAuthHeader, "Invalid authorization header");
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            throw new ServerError(StatusCode.InvalidAuthHeader, "Invalid authorization header");
        }
        auth.checkUser(decoded.substring(0, colon), decoded.substring(colon + 1));
    }

    static int httpStatus(StatusCode code) {
        switch (code) {
            case Success: return 200;
            case Cancelled: case DeadlineExceeded: return 504;
            case Unsupported: case InvalidArguments: case InvalidSyntax: case RequestOutdated: case RegionAlreadyExists:
            case TableColumnExists: case TableAlreadyExists: case RegionNotFound: case DatabaseNotFound:
            case TableNotFound: case TableColumnNotFound: case PlanQuery: case DatabaseAlreadyExists:
                return 400;
            case AuthHeaderNotFound: case InvalidAuthHeader: case UserNotFound: case UnsupportedPasswordType:
            case UserPasswordMismatch:
                return 401;
            case AccessDenied: case PermissionDenied: return 403;
            default: return 500;
        }
    }

    private static void error(HttpExchange ex, ServerError e, long started) throws IOException {
        JsonObject body = new JsonObject();
        body.addProperty("code", e.code().code());
        body.addProperty("error", e.getMessage());
        body.addProperty("execution_time_ms", (System.nanoTime() - started) / 1_000_000);
        answer(ex, httpStatus(e.code()), body.toString(), e.code());
    }

    private static void answer(HttpExchange ex, int status, String json, StatusCode code) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        if (code != null) {
            ex.getResponseHeaders().set("x-greptime-err-code", Integer.toString(code.code()));
        }
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    void close() {
        server.stop(0);
    }
}
