package dev.sluice.testkit.conformance;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server reached by host and ports, as a real GreptimeDB is: writes go to its gRPC port, reads through its HTTP
 * SQL API ({@code POST /v1/sql?db=public} with basic auth).
 */
final class HttpSqlTarget implements Target {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();

    private final String name;
    private final String host;
    private final int grpcPort;
    private final int httpPort;
    private final String user;
    private final String password;

    HttpSqlTarget(String name, String host, int grpcPort, int httpPort, String user, String password) {
        this.name = name;
        this.host = host;
        this.grpcPort = grpcPort;
        this.httpPort = httpPort;
        this.user = user;
        this.password = password;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int grpcPort() {
        return grpcPort;
    }

    @Override
    public String user() {
        return user;
    }

    @Override
    public String password() {
        return password;
    }

    JsonObject sql(String sql) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + host + ":" + httpPort + "/v1/sql?db=public"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                        .getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(60)).build();
        HttpResponse<String> resp = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        return JsonParser.parseString(resp.body()).getAsJsonObject();
    }

    static JsonArray rows(JsonObject answer) {
        if (!answer.has("output")) {
            throw new IllegalStateException("SQL failed: " + answer);
        }
        return answer.getAsJsonArray("output").get(0).getAsJsonObject().getAsJsonObject("records").getAsJsonArray("rows");
    }

    @Override
    public List<List<String>> select(String table, List<String> columns, String orderBy) throws Exception {
        List<List<String>> out = new ArrayList<>();
        for (JsonElement r : rows(sql("SELECT " + String.join(", ", columns) + " FROM " + table + " ORDER BY " + orderBy))) {
            List<String> line = new ArrayList<>();
            for (JsonElement v : r.getAsJsonArray()) {
                line.add(v.isJsonNull() ? null : v.getAsString());
            }
            out.add(line);
        }
        return out;
    }

    @Override
    public String tableOption(String table, String key) throws Exception {
        String create = rows(sql("SHOW CREATE TABLE " + table)).get(0).getAsJsonArray().get(1).getAsString();
        Matcher m = Pattern.compile(Pattern.quote(key) + "\\s*=\\s*'([^']*)'").matcher(create);
        return m.find() ? m.group(1) : null;
    }

    @Override
    public boolean exists(String table) throws Exception {
        for (JsonElement r : rows(sql("SHOW TABLES"))) {
            if (r.getAsJsonArray().get(0).getAsString().equals(table)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return name + " at " + host + " (gRPC " + grpcPort + ", HTTP " + httpPort + ")";
    }
}
