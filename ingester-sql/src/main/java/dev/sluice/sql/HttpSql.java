package dev.sluice.sql;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
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
import java.util.Optional;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A client of GreptimeDB's HTTP SQL API ({@code POST /v1/sql}, port 4000 by default): runs statements in one
 * database, reads an existing table's columns ({@code DESC TABLE}) and counts rows. Thread-safe; holds no
 * connection between calls beyond the JDK's keep-alive cache ({@link HttpURLConnection}, which starts in a few
 * milliseconds, where the JDK's newer HTTP client spends a few hundred loading itself).
 *
 * <pre>{@code
 * HttpSql sql = HttpSql.newBuilder("localhost:4000", "public").build();
 * Optional<List<ServerColumn>> cpu = sql.describeTable("cpu");   // empty: no such table
 * }</pre>
 */
public final class HttpSql {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final URI uri;
    private final String endpoint;
    private final String authorization;
    private final Duration timeout;
    private final Duration connectTimeout;
    /** The TLS context of an {@code https} endpoint with its own trust, or null for the JVM's default. */
    private final SSLContext sslContext;

    private HttpSql(Builder b) {
        String base = b.endpoint.contains("://") ? b.endpoint : "http://" + b.endpoint;
        base = base.replaceAll("/+$", "");
        this.endpoint = base;
        this.uri = URI.create(base + "/v1/sql?db=" + URLEncoder.encode(b.database, StandardCharsets.UTF_8));
        this.authorization = b.username == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                (b.username + ":" + (b.password == null ? "" : b.password)).getBytes(StandardCharsets.UTF_8));
        this.timeout = b.timeout;
        this.connectTimeout = b.connectTimeout;
        this.sslContext = b.sslContext;
    }

    /**
     * Starts a client's settings.
     *
     * @param endpoint {@code host:port} (plain HTTP) or a URL such as {@code https://host:4000}
     * @param database the database statements run in
     * @return the builder
     */
    public static Builder newBuilder(String endpoint, String database) {
        return new Builder(endpoint, database);
    }

    /**
     * Returns the base URL statements go to.
     *
     * @return the URL, without {@code /v1/sql}
     */
    public String endpoint() {
        return endpoint;
    }

    /**
     * Runs one statement.
     *
     * @param sql the statement
     * @return its answer
     * @throws SqlException when the endpoint cannot be reached, or the server answers with an error (its code kept)
     */
    public SqlAnswer execute(String sql) throws SqlException {
        byte[] form = ("sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
        HttpURLConnection c = null;
        int status;
        String body;
        try {
            c = (HttpURLConnection) uri.toURL().openConnection();
            if (c instanceof HttpsURLConnection tls && sslContext != null) {
                tls.setSSLSocketFactory(sslContext.getSocketFactory());
            }
            c.setInstanceFollowRedirects(false);
            c.setConnectTimeout(timeoutMillis(connectTimeout));
            c.setReadTimeout(timeoutMillis(timeout));
            c.setRequestMethod("POST");
            c.setDoOutput(true);
            c.setFixedLengthStreamingMode(form.length);
            c.setRequestProperty("Content-Type", "application/x-www-form-urlencoded");
            if (authorization != null) {
                c.setRequestProperty("Authorization", authorization);
            }
            try (OutputStream out = c.getOutputStream()) {
                out.write(form);
            }
            status = c.getResponseCode();
            InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
            if (in == null) {
                body = "";
            } else {
                try (in) {
                    body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
        } catch (ConnectException e) {
            throw new SqlException("no connection to " + endpoint + " (nothing listens there, or it is not reachable"
                    + " from here; GreptimeDB's HTTP port is 4000 by default)", -1, e);
        } catch (SocketTimeoutException e) {
            throw new SqlException(endpoint + " gave no answer within " + timeout.toSeconds() + " s", -1, e);
        } catch (IOException e) {
            if (c != null) {
                c.disconnect();
            }
            throw new SqlException("asking " + endpoint + " failed: " + e, -1, e);
        }
        return parse(status, body, sql);
    }

    private static int timeoutMillis(Duration d) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
    }

    /**
     * Tells whether an existing table keeps every row written to it ({@code append_mode = 'true'}), where a row
     * sent twice is stored twice, or keeps the last write of a row (tags and time index). Asked with
     * {@code SHOW CREATE TABLE}.
     *
     * @param table the table's name
     * @return true for an append-mode table, false for a last-write-wins one, empty when the table does not exist
     * @throws SqlException when the endpoint cannot be reached or answers with another error
     */
    public Optional<Boolean> appendMode(String table) throws SqlException {
        SqlAnswer a;
        try {
            a = execute("SHOW CREATE TABLE " + quote(table));
        } catch (SqlException e) {
            if (missingTable(e)) {
                return Optional.empty();
            }
            throw e;
        }
        for (List<String> row : a.rows()) {
            for (String cell : row) {
                if (cell != null && APPEND_MODE.matcher(cell).find()) {
                    return Optional.of(true);
                }
            }
        }
        return Optional.of(false);
    }

    /**
     * The option as {@code SHOW CREATE TABLE} renders it in its {@code WITH(...)} clause ({@code append_mode = 'true'};
     * see GreptimeTeam/greptimedb tests/cases/standalone/common/show/show_create.result), its key quoted or not.
     */
    private static final java.util.regex.Pattern APPEND_MODE = java.util.regex.Pattern.compile(
            "(?i)['\"`]?\\bappend_mode['\"`]?\\s*=\\s*'true'");

    /**
     * Whether the answer says the table is missing. A missing database (4004 "Database not found: db", or 1004
     * "Failed to find schema") also reads "not found" but says nothing about the table: it stays an error.
     */
    private static boolean missingTable(SqlException e) {
        String m = e.getMessage();
        if (e.code() == 4004 || m.contains("Database not found") || m.contains("Failed to find schema")) {
            return false;
        }
        return e.code() == 4001 || m.contains("not found") || m.contains("not exist");
    }

    /**
     * Reads an existing table's columns.
     *
     * @param table the table's name
     * @return the columns in the table's order, or empty when the table does not exist
     * @throws SqlException when the endpoint cannot be reached or answers with another error
     */
    public Optional<List<ServerColumn>> describeTable(String table) throws SqlException {
        SqlAnswer a;
        try {
            a = execute("DESC TABLE " + quote(table));
        } catch (SqlException e) {
            if (missingTable(e)) {
                return Optional.empty();
            }
            throw e;
        }
        List<ServerColumn> out = new ArrayList<>(a.rows().size());
        for (List<String> row : a.rows()) {
            out.add(ServerColumn.of(row.get(0), row.get(1), row.size() > 5 ? row.get(5) : null));
        }
        return Optional.of(out);
    }

    /**
     * Reads an existing table's columns as a schema.
     *
     * @param table the table's name
     * @return the schema, or empty when the table does not exist
     * @throws SqlException when the endpoint cannot be reached, answers with another error, or the table has a
     *     column of a type Sluice cannot write (named)
     */
    public Optional<TableSchema> describeSchema(String table) throws SqlException {
        Optional<List<ServerColumn>> columns = describeTable(table);
        if (columns.isEmpty()) {
            return Optional.empty();
        }
        TableSchema.Builder b = TableSchema.newBuilder(table);
        for (ServerColumn c : columns.get()) {
            if (c.type() == null) {
                throw new SqlException("table '" + table + "' column '" + c.name() + "' has the type " + c.typeName()
                        + ", which Sluice cannot write", -1, null);
            }
            if (c.type() == DataType.Vector) {
                b.addColumn(c.name(), c.semantic(), c.type(), c.vector());
            } else if (c.type() == DataType.Decimal128) {
                b.addColumn(c.name(), c.semantic(), c.type(), c.decimal());
            } else {
                b.addColumn(c.name(), c.semantic(), c.type());
            }
        }
        return Optional.of(b.build());
    }

    /**
     * Counts a table's rows.
     *
     * @param table the table's name
     * @return {@code count(*)}
     * @throws SqlException when the count fails
     */
    public long count(String table) throws SqlException {
        SqlAnswer a = execute("SELECT count(*) FROM " + quote(table));
        if (a.rows().isEmpty() || a.rows().get(0).isEmpty()) {
            throw new SqlException("SELECT count(*) FROM " + table + " answered no rows", -1, null);
        }
        return Long.parseLong(a.rows().get(0).get(0));
    }

    /**
     * Quotes an identifier for GreptimeDB's SQL (MySQL style, with backticks).
     *
     * @param identifier a table or column name
     * @return the quoted name
     */
    public static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    /**
     * Reads the JSON the API answers with: {@code {"output":[{"records":{"schema":{"column_schemas":[{"name":...}]},
     * "rows":[[...]]}}]}} or {@code {"code":N,"error":"..."}}.
     */
    static SqlAnswer parse(int status, String body, String sql) throws SqlException {
        List<String> names = new ArrayList<>();
        List<List<String>> rows = new ArrayList<>();
        int code = -1;
        String error = null;
        boolean output = false;
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
                    output = true;
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
        } catch (IOException e) {
            throw new SqlException("HTTP " + status + " with a body that is not GreptimeDB's JSON: " + abbreviate(body)
                    + " (is this GreptimeDB's HTTP port?)", -1, e);
        }
        if (error != null) {
            throw new SqlException(abbreviate(sql) + ": " + error + " (code " + code + ")", code, null);
        }
        if (!output || status != 200) {
            throw new SqlException("HTTP " + status + " without GreptimeDB's answer: " + abbreviate(body)
                    + " (is this GreptimeDB's HTTP port?)", code, null);
        }
        return new SqlAnswer(List.copyOf(names), rows);
    }

    private static String abbreviate(String s) {
        String one = s == null ? "" : s.replaceAll("\\s+", " ");
        return one.length() > 200 ? one.substring(0, 200) + "..." : one;
    }

    /** A client's settings. */
    public static final class Builder {
        private final String endpoint;
        private final String database;
        private String username;
        private String password;
        private SSLContext sslContext;
        private Duration timeout = Duration.ofSeconds(60);
        private Duration connectTimeout = Duration.ofSeconds(10);

        private Builder(String endpoint, String database) {
            if (endpoint == null || endpoint.isBlank() || database == null || database.isBlank()) {
                throw new IllegalArgumentException("an HTTP endpoint and a database are required");
            }
            this.endpoint = endpoint.strip();
            this.database = database;
        }

        /**
         * Sends basic authentication.
         *
         * @param username the user
         * @param password the password
         * @return this builder
         */
        public Builder auth(String username, String password) {
            this.username = username;
            this.password = password;
            return this;
        }

        /**
         * Trusts the certificates of a PEM file (the server's CA) for {@code https} endpoints, instead of the JVM's
         * default trust store.
         *
         * @param caPem the PEM file
         * @return this builder
         * @throws SqlException when the file cannot be read as certificates
         */
        public Builder trustedCa(Path caPem) throws SqlException {
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
                this.sslContext = ctx;
                return this;
            } catch (IOException | GeneralSecurityException e) {
                throw new SqlException("cannot read the CA certificate " + caPem + ": " + e.getMessage(), -1, e);
            }
        }

        /**
         * Bounds each wait for the server once connected: for the statement to be taken, and for each part of the answer.
         *
         * @param timeout the longest wait (60 s by default)
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /**
         * Bounds opening a connection.
         *
         * @param connectTimeout the longest wait (10 s by default)
         * @return this builder
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /**
         * Builds the client.
         *
         * @return the client
         */
        public HttpSql build() {
            return new HttpSql(this);
        }
    }
}
