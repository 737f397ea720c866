package dev.sluice.importer.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.io.IOException;
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

/**
 * GreptimeDB's HTTP SQL API ({@code POST /v1/sql}): the import reads an existing table's columns
 * ({@code DESC TABLE}) and counts rows for {@code --verify}.
 */
public final class ServerSql {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final URI uri;
    private final String database;
    private final String auth;

    /**
     * Creates the client.
     *
     * @param endpoint {@code host:port} or a URL ({@code https://host:4000})
     * @param database the database
     * @param user user, or null
     * @param password password, or null
     */
    public ServerSql(String endpoint, String database, String user, String password) {
        String base = endpoint.contains("://") ? endpoint : "http://" + endpoint;
        this.uri = URI.create(base.replaceAll("/+$", "") + "/v1/sql");
        this.database = database;
        this.auth = user == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                (user + ":" + (password == null ? "" : password)).getBytes(StandardCharsets.UTF_8));
    }

    /** An answer: column names and rows, or the server's error. */
    record Answer(List<String> names, List<List<String>> rows, Integer code, String error) {
    }

    Answer run(String sql) throws IOException {
        String form = "sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8) + "&db="
                + URLEncoder.encode(database, StandardCharsets.UTF_8);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return parse(r.body());
    }

    static Answer parse(String body) throws IOException {
        List<String> names = new ArrayList<>();
        List<List<String>> rows = new ArrayList<>();
        Integer code = null;
        String error = null;
        try (JsonParser p = JSON.createParser(body)) {
            while (p.nextToken() != null) {
                if (p.currentToken() != JsonToken.FIELD_NAME) {
                    continue;
                }
                String f = p.currentName();
                p.nextToken();
                if (f.equals("code") && p.currentToken().isNumeric()) {
                    code = p.getIntValue();
                } else if (f.equals("error")) {
                    error = p.getText();
                } else if (f.equals("name") && p.currentToken() == JsonToken.VALUE_STRING) {
                    names.add(p.getText());
                } else if (f.equals("rows") && p.currentToken() == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.START_ARRAY) {
                        List<String> row = new ArrayList<>();
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            row.add(p.currentToken() == JsonToken.VALUE_NULL ? null : p.getText());
                        }
                        rows.add(row);
                    }
                }
            }
        }
        return new Answer(names, rows, code, error);
    }

    /**
     * Reads a table's columns, or null when it does not exist.
     *
     * @param table the table
     * @return the schema, or null
     * @throws IOException when the server cannot be asked or answers with another error
     */
    public TableSchema describe(String table) throws IOException {
        Answer a = run("DESC TABLE " + Plan.quote(table));
        if (a.error() != null) {
            if (a.code() != null && a.code() == 4001 || a.error().contains("not found") || a.error().contains("not exist")) {
                return null;
            }
            throw new IOException("DESC TABLE " + table + ": " + a.error());
        }
        TableSchema.Builder b = TableSchema.newBuilder(table);
        for (List<String> row : a.rows()) {
            String name = row.get(0);
            TypeNames.Type t = TypeNames.parse(row.get(1));
            String sem = row.size() > 5 ? row.get(5) : "";
            SemanticType s = "TAG".equalsIgnoreCase(sem) ? SemanticType.Tag
                    : "TIMESTAMP".equalsIgnoreCase(sem) ? SemanticType.Timestamp : SemanticType.Field;
            if (t.decimal() != null) {
                b.addColumn(name, s, t.type(), t.decimal());
            } else {
                b.addColumn(name, s, t.type());
            }
        }
        return b.build();
    }

    /**
     * Counts a table's rows.
     *
     * @param table the table
     * @return {@code count(*)}
     * @throws IOException when the count fails
     */
    public long count(String table) throws IOException {
        Answer a = run("SELECT count(*) FROM " + Plan.quote(table));
        if (a.error() != null || a.rows().isEmpty()) {
            throw new IOException("SELECT count(*) FROM " + table + ": " + (a.error() != null ? a.error() : "no rows"));
        }
        return Long.parseLong(a.rows().get(0).get(0));
    }
}
