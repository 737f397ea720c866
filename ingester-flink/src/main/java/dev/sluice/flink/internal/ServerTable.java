package dev.sluice.flink.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Reads an existing table's columns from GreptimeDB's HTTP SQL API ({@code POST /v1/sql}, {@code DESC TABLE}), so
 * that a writer can compare them with the columns it is about to write before it takes the first row.
 */
public final class ServerTable {
    private static final JsonFactory JSON = JsonFactory.builder().build();
    private static final Pattern DECIMAL = Pattern.compile("(?i)decimal(?:128)?\\s*\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)");
    private static final Pattern VECTOR = Pattern.compile("(?i)vector\\s*\\(\\s*(\\d+)\\s*\\)");

    /**
     * One column as GreptimeDB's table has it.
     *
     * @param name the column's name
     * @param typeName the type as the server names it ({@code Float64}, {@code Decimal(10, 2)}...)
     * @param type the type, or null when the client has no such type
     * @param precision decimal precision, or -1
     * @param scale decimal scale, or -1
     * @param dim vector dimension, or -1
     * @param semantic tag, field or timestamp
     */
    public record Column(String name, String typeName, DataType type, int precision, int scale, int dim,
                         SemanticType semantic) {
    }

    private ServerTable() {
    }

    /**
     * The HTTP endpoint to ask: the one given, or else the first gRPC endpoint's host at GreptimeDB's HTTP port
     * 4000 ({@code https} when the sink uses TLS).
     *
     * @param s the settings
     * @return a base URL, or null when the check is turned off ({@code none})
     */
    public static String baseUrl(SinkSettings s) {
        String given = s.httpEndpoint();
        if ("none".equalsIgnoreCase(given)) {
            return null;
        }
        boolean tls = s.tls() || !s.tlsCa().isEmpty();
        if (given.isEmpty()) {
            String first = s.endpoints().get(0);
            given = first.substring(0, first.lastIndexOf(':')) + ":4000";
        }
        String base = given.contains("://") ? given : (tls ? "https://" : "http://") + given;
        return base.replaceAll("/+$", "");
    }

    /**
     * Reads a table's columns.
     *
     * @param s the settings (database, credentials, TLS)
     * @param baseUrl the HTTP endpoint, from {@link #baseUrl}
     * @param table the table
     * @return the columns in the table's order, or null when the table does not exist
     * @throws IOException when the endpoint cannot be reached or answers with an error
     * @throws InterruptedException when interrupted
     */
    public static List<Column> describe(SinkSettings s, String baseUrl, String table)
            throws IOException, InterruptedException {
        HttpClient.Builder hb = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
        if (baseUrl.startsWith("https://") && !s.tlsCa().isEmpty()) {
            hb.sslContext(trusting(Path.of(s.tlsCa())));
        }
        URI uri = URI.create(baseUrl + "/v1/sql?db=" + URLEncoder.encode(s.database(), StandardCharsets.UTF_8));
        String form = "sql=" + URLEncoder.encode("DESC TABLE " + quote(table), StandardCharsets.UTF_8);
        HttpRequest.Builder rb = HttpRequest.newBuilder(uri).timeout(s.requestTimeout())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (!s.username().isEmpty()) {
            rb.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (s.username() + ":" + s.password()).getBytes(StandardCharsets.UTF_8)));
        }
        HttpResponse<String> r;
        try {
            r = hb.build().send(rb.build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.net.ConnectException e) {
            throw new IOException("no connection (nothing listens there, or it is not reachable from here)", e);
        } catch (java.net.http.HttpTimeoutException e) {
            throw new IOException("no answer within " + s.requestTimeout().toSeconds() + " s", e);
        }
        return parse(r.statusCode(), r.body(), table);
    }

    private static SSLContext trusting(Path caPem) throws IOException {
        try (InputStream in = Files.newInputStream(caPem)) {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                ks.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the CA certificate " + caPem + ": " + e.getMessage(), e);
        }
    }

    private static String quote(String table) {
        return "`" + table.replace("`", "``") + "`";
    }

    /**
     * Reads the answer to {@code DESC TABLE}.
     *
     * @param status the HTTP status
     * @param body the JSON body
     * @param table the table asked for (for the message)
     * @return the columns, or null when the server says the table does not exist
     * @throws IOException when the answer is an error or not an answer of GreptimeDB's SQL API
     */
    static List<Column> parse(int status, String body, String table) throws IOException {
        List<List<String>> rows = new ArrayList<>();
        Integer code = null;
        String error = null;
        boolean sawOutput = false;
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
                } else if (f.equals("output")) {
                    sawOutput = true;
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
        } catch (IOException e) {
            throw new IOException("HTTP " + status + " with a body that is not GreptimeDB's JSON: "
                    + abbreviate(body), e);
        }
        if (error != null) {
            if (code != null && code == 4001 || error.contains("not found") || error.contains("not exist")) {
                return null;
            }
            throw new IOException("HTTP " + status + ", code " + code + ": " + error);
        }
        if (!sawOutput || status != 200) {
            throw new IOException("HTTP " + status + " without GreptimeDB's answer: " + abbreviate(body));
        }
        List<Column> out = new ArrayList<>();
        for (List<String> row : rows) {
            String sem = row.size() > 5 && row.get(5) != null ? row.get(5).toUpperCase(Locale.ROOT) : "FIELD";
            SemanticType semantic = switch (sem) {
                case "TAG" -> SemanticType.Tag;
                case "TIMESTAMP" -> SemanticType.Timestamp;
                default -> SemanticType.Field;
            };
            out.add(column(row.get(0), row.get(1), semantic));
        }
        return out;
    }

    /**
     * Reads a type as the server names it ({@code ConcreteDataType}'s name).
     *
     * @param name the column's name
     * @param typeName the server's type name
     * @param semantic the column's role
     * @return the column; its type null when the client has none of that name
     */
    static Column column(String name, String typeName, SemanticType semantic) {
        String t = typeName.strip();
        Matcher d = DECIMAL.matcher(t);
        if (d.matches()) {
            return new Column(name, t, DataType.Decimal128, Integer.parseInt(d.group(1)), Integer.parseInt(d.group(2)),
                    -1, semantic);
        }
        Matcher v = VECTOR.matcher(t);
        if (v.matches()) {
            return new Column(name, t, DataType.Vector, -1, -1, Integer.parseInt(v.group(1)), semantic);
        }
        if (t.equalsIgnoreCase("Boolean")) {
            return new Column(name, t, DataType.Bool, -1, -1, -1, semantic);
        }
        for (DataType dt : DataType.values()) {
            if (dt.name().equalsIgnoreCase(t)) {
                return new Column(name, t, dt, -1, -1, -1, semantic);
            }
        }
        return new Column(name, t, null, -1, -1, -1, semantic);
    }

    private static String abbreviate(String s) {
        String one = s == null ? "" : s.replaceAll("\\s+", " ");
        return one.length() > 200 ? one.substring(0, 200) + "..." : one;
    }
}
