package dev.sluice.bench.target;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A real GreptimeDB: gRPC for writes, HTTP {@code /v1/sql} for resets and counts. */
public class GreptimeTarget implements Target {
    private static final Pattern FIRST_NUMBER = Pattern.compile("\"rows\"\\s*:\\s*\\[\\s*\\[\\s*(\\d+)");
    private final String endpoint;
    private final String httpBase;
    private final String database;
    private final String auth;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /**
     * Points at a server.
     *
     * @param endpoint gRPC host:port
     * @param httpEndpoint HTTP host:port, or a URL starting with {@code http://} or {@code https://}
     * @param database database name
     * @param user user or null
     * @param password password or null
     */
    public GreptimeTarget(String endpoint, String httpEndpoint, String database, String user, String password) {
        this.endpoint = endpoint;
        this.httpBase = httpEndpoint.startsWith("http://") || httpEndpoint.startsWith("https://")
                ? httpEndpoint.replaceAll("/+$", "") : "http://" + httpEndpoint;
        this.database = database;
        this.auth = user == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                (user + ":" + (password == null ? "" : password)).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    @Override
    public String description() {
        return "GreptimeDB at " + endpoint + " (SQL over " + httpBase + "), database " + database;
    }

    /**
     * Runs one SQL statement.
     *
     * @param sql the statement
     * @return the JSON answer
     * @throws IOException on failure
     * @throws InterruptedException when interrupted
     */
    public String sql(String sql) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(httpBase + "/v1/sql?db="
                        + URLEncoder.encode(database, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IOException("SQL '" + sql + "' answered HTTP " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    @Override
    public void reset(String table) throws Exception {
        sql("DROP TABLE IF EXISTS " + table);
    }

    @Override
    public long count(String table) throws Exception {
        String body = sql("SELECT count(*) FROM " + table);
        Matcher m = FIRST_NUMBER.matcher(body);
        if (!m.find()) {
            throw new IOException("unexpected answer to count(*): " + body);
        }
        return Long.parseLong(m.group(1));
    }

    @Override
    public void close() {
    }
}
