package dev.sluice.kafka.connect.internal;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Asks GreptimeDB's HTTP SQL API ({@code POST /v1/sql}, {@code SHOW CREATE TABLE}) whether tables exist in append
 * mode, where redelivered records are stored twice. The gRPC write path cannot tell; this check is best effort:
 * a table that does not exist yet, or a server that does not answer, is reported as unknown.
 */
public final class AppendModeCheck {
    /** GreptimeDB prints table options as {@code append_mode = 'true'} in {@code WITH(...)}. */
    private static final Pattern APPEND = Pattern.compile("append_mode\\W{1,8}true", Pattern.CASE_INSENSITIVE);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;
    private final String database;
    private final String authHeader;

    /**
     * Creates a check.
     *
     * @param baseUrl the HTTP API, e.g. {@code http://host:4000}
     * @param database the database
     * @param user basic-auth user, or empty
     * @param password basic-auth password
     */
    public AppendModeCheck(String baseUrl, String database, String user, String password) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.database = database;
        this.authHeader = user.isEmpty() ? null : "Basic " + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** What the server said about one table. */
    public enum Mode {
        /** The table keeps duplicates. */
        APPEND,
        /** The table keeps the last write of a row. */
        LAST_WRITE_WINS,
        /** Missing table, refused query, or no answer. */
        UNKNOWN
    }

    /**
     * Asks about one table.
     *
     * @param table the table
     * @return its mode
     */
    public Mode mode(String table) {
        String sql = "SHOW CREATE TABLE \"" + table.replace("\"", "\"\"") + "\"";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/sql?db="
                        + URLEncoder.encode(database, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)));
        if (authHeader != null) {
            b.header("Authorization", authHeader);
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200 || !r.body().contains("CREATE TABLE")) {
                return Mode.UNKNOWN;
            }
            return APPEND.matcher(r.body()).find() ? Mode.APPEND : Mode.LAST_WRITE_WINS;
        } catch (java.io.IOException | IllegalArgumentException e) {
            return Mode.UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Mode.UNKNOWN;
        }
    }

    /**
     * Lists the given tables that are in append mode.
     *
     * @param tables table names
     * @return those the server reports in append mode
     */
    public List<String> appendModeTables(List<String> tables) {
        List<String> out = new ArrayList<>();
        for (String t : tables) {
            if (mode(t) == Mode.APPEND) {
                out.add(t);
            }
        }
        return out;
    }
}
