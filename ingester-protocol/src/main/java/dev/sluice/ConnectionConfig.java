package dev.sluice;

import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WhenFull;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A client's settings in one string, as a program reads them from its configuration or its environment:
 *
 * <pre>{@code
 * greptimedb://user:pass@host1:4001,host2:4001/mydb?tls=true&compression=zstd&request_timeout=30s
 *
 * GreptimeDB db = GreptimeDB.create(ConnectionConfig.parse(text).options());
 * ConnectionConfig env = ConnectionConfig.fromEnvironment();   // GREPTIMEDB_CONNECTION
 * BatchingWriter w = db.batchingWriter(env.batching(), env.context());
 * }</pre>
 *
 * <p>The parts: the scheme {@code greptimedb://}; optional {@code user[:password]@} (percent-encoded where they
 * hold {@code @ : / ? # % &} or non-ASCII characters; {@code +} stays a plus); one or more hosts separated by
 * commas, each {@code host}, {@code host:port}, {@code [ipv6]} or {@code [ipv6]:port} (GreptimeDB's gRPC port,
 * 4001 when omitted); optional {@code /database} (percent-encoded; {@code public} when omitted); optional
 * {@code ?key=value&...} with the keys of the table {@link #keyTable()} renders (the user's guide shows it). Values
 * are percent-decoded too ({@code +08:00} stays as written).
 *
 * <p>Each key is handed to the builder setter it names, so a value is checked exactly as the builders check it:
 * a bad value is refused naming its key. Unknown keys, a key given twice (hint names count trimmed, as they are
 * sent), and settings that contradict each other ({@code tls=false} with a {@code tls_*} key, a client certificate
 * without its key) are refused naming the key; a host named twice and %-escapes that do not spell UTF-8 are refused
 * naming the host or the part.
 * Neither errors nor {@link #toString()} ever show the password.
 *
 * <p>{@link #fromEnvironment()} reads the string from the system property {@value #PROPERTY} or the environment
 * variable {@value #VARIABLE}, and the password from {@value #PASSWORD_PROPERTY} or {@value #PASSWORD_VARIABLE}
 * when it is kept out of the string.
 *
 * <p>An integration with settings of its own applies the string on top of them with
 * {@link #applyTo(GreptimeOptions.Builder)}, {@link #applyTo(BatchingWriter.Config.Builder)} and
 * {@link #applyTo(Context.Builder)}: only the keys the string names change anything.
 */
public final class ConnectionConfig {
    /** The environment variable {@link #fromEnvironment()} reads the string from. */
    public static final String VARIABLE = "GREPTIMEDB_CONNECTION";
    /** The system property {@link #fromEnvironment()} reads the string from (it wins over the variable). */
    public static final String PROPERTY = "greptimedb.connection";
    /** The environment variable holding the password when the string names a user without one. */
    public static final String PASSWORD_VARIABLE = "GREPTIMEDB_PASSWORD";
    /** The system property holding the password when the string names a user without one. */
    public static final String PASSWORD_PROPERTY = "greptimedb.password";
    private static final String SCHEME = "greptimedb://";
    private static final String FORM = "greptimedb://[user[:password]@]host[:port][,host[:port]...][/database]"
            + "[?key=value&...]";
    private static final int DEFAULT_PORT = 4001;
    private static final String HINT_PREFIX = "hint.";
    /** What brackets may hold: an IPv6 address (hexadecimal groups, '::', a dotted IPv4 tail), with an optional zone. */
    /** The longest duration a key takes: waits are timed in nanoseconds held in a long. */
    private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);
    private static final Pattern IPV6 = Pattern.compile("(?=[0-9A-Fa-f.]*:)[0-9A-Fa-f:.]+(%[0-9A-Za-z_.\\-]+)?");

    private final List<String> endpoints;
    private final String database;
    private final String user;
    private final String password;
    /** The query keys as given, in order, values decoded. */
    private final Map<String, String> keys;

    private ConnectionConfig(List<String> endpoints, String database, String user, String password,
                             Map<String, String> keys) {
        this.endpoints = List.copyOf(endpoints);
        this.database = database;
        this.user = user;
        this.password = password;
        this.keys = Collections.unmodifiableMap(keys);
    }

    /**
     * Reads a connection string and checks every value, as the builders would.
     *
     * @param connection the string, {@code greptimedb://...}
     * @return the settings
     * @throws IllegalArgumentException naming the part or key that is wrong (never showing the password)
     */
    public static ConnectionConfig parse(String connection) {
        return parse(connection, null, null);
    }

    /**
     * Reads the connection string from the system property {@value #PROPERTY}, else from the environment
     * variable {@value #VARIABLE}; the password may come from {@value #PASSWORD_PROPERTY} or
     * {@value #PASSWORD_VARIABLE} instead of the string.
     *
     * @return the settings
     * @throws IllegalStateException when neither is set
     * @throws IllegalArgumentException as {@link #parse(String)}, or when the password is given twice (in the string
     *     and apart), or apart with no user in the string
     */
    public static ConnectionConfig fromEnvironment() {
        return fromEnvironment(System.getenv(), System.getProperties());
    }

    /**
     * Reads the connection string as {@link #fromEnvironment()} does, from the given variables and properties.
     *
     * @param variables environment variables
     * @param properties system properties
     * @return the settings
     * @throws IllegalStateException when neither names a connection string
     * @throws IllegalArgumentException as {@link #fromEnvironment()}
     */
    public static ConnectionConfig fromEnvironment(Map<String, String> variables, java.util.Properties properties) {
        String text = properties.getProperty(PROPERTY);
        String from = "system property " + PROPERTY;
        if (text == null) {
            text = variables.get(VARIABLE);
            from = "environment variable " + VARIABLE;
        }
        if (text == null) {
            throw new IllegalStateException("no connection string: set the environment variable " + VARIABLE
                    + " (or the system property " + PROPERTY + ") to " + FORM);
        }
        String pass = properties.getProperty(PASSWORD_PROPERTY);
        String passFrom = "system property " + PASSWORD_PROPERTY;
        if (pass == null) {
            pass = variables.get(PASSWORD_VARIABLE);
            passFrom = "environment variable " + PASSWORD_VARIABLE;
        }
        return parse(text, pass, pass == null ? null : passFrom);
    }

    private static ConnectionConfig parse(String connection, String separatePassword, String passwordSource) {
        ConnectionConfig c;
        try {
            c = read(connection);
        } catch (IllegalArgumentException e) {
            if (mayShowPassword(connection, e.getMessage())) {
                throw new IllegalArgumentException("the connection string is malformed (details left out: they would"
                        + " show part of the password); percent-encode @ : / ? # % & in the user and password, and"
                        + " check it reads " + FORM);
            }
            throw e;
        }
        return passwordSource == null ? c : c.withPassword(separatePassword, passwordSource);
    }

    /**
     * Gives the user the string names a password kept apart from the string (an environment variable, an option
     * whose value a tool hides), as {@link #fromEnvironment()} does with {@value #PASSWORD_VARIABLE}.
     *
     * @param separatePassword the password
     * @param source where it was given, for errors, e.g. {@code environment variable GREPTIMEDB_PASSWORD}
     * @return these settings with the password
     * @throws IllegalArgumentException when the string names no user, or names a password too
     */
    public ConnectionConfig withPassword(String separatePassword, String source) {
        Objects.requireNonNull(separatePassword, "password");
        if (user == null) {
            throw new IllegalArgumentException("the " + source + " is set, but the connection string names no user:"
                    + " write greptimedb://user@host/...");
        }
        if (password != null) {
            throw new IllegalArgumentException("the password is given twice: in the connection string and in the "
                    + source + "; keep one");
        }
        return new ConnectionConfig(endpoints, database, user, separatePassword, new LinkedHashMap<>(keys));
    }

    /**
     * Whether a message quotes a piece of what may be the password: the text between the first ':' after the
     * scheme and the last '@' (a password holding an unencoded '/', '?' or '#' is cut there by the parser).
     */
    private static boolean mayShowPassword(String connection, String message) {
        int at = connection == null ? -1 : connection.lastIndexOf('@');
        int start = connection == null ? -1 : connection.indexOf("://");
        if (at < 0 || start < 0 || message == null) {
            return false;
        }
        int colon = connection.indexOf(':', start + 3);
        if (colon < 0 || colon > at) {
            return false;
        }
        for (String piece : connection.substring(colon + 1, at).split("[/?#&=]")) {
            if (piece.length() >= 2 && message.contains(piece)) {
                return true;
            }
        }
        return false;
    }

    private static ConnectionConfig read(String connection) {
        if (connection == null || connection.isBlank()) {
            throw new IllegalArgumentException("the connection string is empty: expected " + FORM);
        }
        String s = connection.trim();
        if (!s.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            int sep = s.indexOf("://");
            throw new IllegalArgumentException("the connection string must start with " + SCHEME
                    + (sep > 0 && sep < 20 ? " (not " + s.substring(0, sep + 3) + ")" : "") + ": expected " + FORM);
        }
        String rest = s.substring(SCHEME.length());
        String query = null;
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        String user = null;
        String password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String info = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = info.indexOf(':');
            user = decode(colon >= 0 ? info.substring(0, colon) : info, "the user", false);
            password = colon >= 0 ? decode(info.substring(colon + 1), "the password", true) : null;
            if (user.isEmpty()) {
                throw new IllegalArgumentException("the connection string has credentials without a user: expected "
                        + FORM);
            }
        }
        String database = "public";
        int slash = rest.indexOf('/');
        if (slash >= 0) {
            String db = decode(rest.substring(slash + 1), "the database", false);
            rest = rest.substring(0, slash);
            if (db.contains("/")) {
                throw new IllegalArgumentException("the connection string's database '" + db + "' holds a '/': a"
                        + " database name is one path segment");
            }
            if (!db.isEmpty()) {
                database = db;
            }
        }
        List<String> endpoints = hosts(rest);
        Map<String, String> keys = query == null ? new LinkedHashMap<>() : query(query);
        ConnectionConfig c = new ConnectionConfig(endpoints, database, user, password, keys);
        // Every value goes through the builders now, so a bad one is refused here, naming its key.
        c.options();
        c.batching();
        c.context();
        return c;
    }

    private static List<String> hosts(String list) {
        if (list.isEmpty()) {
            throw new IllegalArgumentException("the connection string names no host: expected " + FORM);
        }
        List<String> out = new ArrayList<>();
        for (String h : list.split(",", -1)) {
            String host;
            String port;
            if (h.startsWith("[")) {
                int close = h.indexOf(']');
                if (close < 0) {
                    throw new IllegalArgumentException("host '" + h + "' opens '[' without closing it");
                }
                host = h.substring(0, close + 1);
                if (!IPV6.matcher(host.substring(1, close)).matches()) {
                    throw new IllegalArgumentException("host '" + h + "': brackets hold an IPv6 address such as"
                            + " [::1]; write a name or an IPv4 address without them");
                }
                String after = h.substring(close + 1);
                if (!after.isEmpty() && !after.startsWith(":")) {
                    throw new IllegalArgumentException("host '" + h + "': expected [address]:port");
                }
                port = after.isEmpty() ? null : after.substring(1);
            } else {
                int colon = h.indexOf(':');
                if (colon >= 0 && h.indexOf(':', colon + 1) >= 0) {
                    throw new IllegalArgumentException("host '" + h + "' looks like an IPv6 address: write it in"
                            + " brackets, [" + h + "]:4001");
                }
                host = colon >= 0 ? h.substring(0, colon) : h;
                port = colon >= 0 ? h.substring(colon + 1) : null;
            }
            if (host.isEmpty() || host.equals("[]")) {
                throw new IllegalArgumentException("the connection string has an empty host in '" + list + "'");
            }
            int p = DEFAULT_PORT;
            if (port != null) {
                // Digits only: Integer.parseInt alone would also take a sign ('+80').
                p = port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9') ? -1
                        : Integer.parseInt(port);
                if (p < 1 || p > 65_535) {
                    throw new IllegalArgumentException("host '" + h + "' has an invalid port '" + port
                            + "': write a port from 1 to 65535 in digits");
                }
            }
            String endpoint = host + ":" + p;
            for (String seen : out) {
                // Host names are case-insensitive: DB1 and db1 are one host.
                if (seen.equalsIgnoreCase(endpoint)) {
                    throw new IllegalArgumentException("host '" + endpoint + "' is named twice in the connection"
                            + " string ('" + list + "'): name each host once");
                }
            }
            out.add(endpoint);
        }
        return out;
    }

    private static Map<String, String> query(String query) {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq), "a key", false);
            Key k = key(name);
            if (k == null) {
                throw new IllegalArgumentException("unknown key '" + name + "' in the connection string; the keys are: "
                        + String.join(", ", keyNames()) + " and hint.<name>");
            }
            if (eq < 0) {
                throw new IllegalArgumentException("key '" + name + "' of the connection string has no value: write "
                        + name + "=<" + k.type + ">");
            }
            String named = hintName(name);
            if (keys.containsKey(named)) {
                throw new IllegalArgumentException("key '" + named + "' is given twice in the connection string"
                        + (named.equals(name) ? "" : " (also as '" + name + "': a hint's name is sent trimmed)"));
            }
            keys.put(named, decode(pair.substring(eq + 1), "the value of '" + named + "'", false));
        }
        if (keys.containsKey("tls") && isFalse(keys.get("tls"))) {
            for (String name : keys.keySet()) {
                if (name.startsWith("tls_")) {
                    throw new IllegalArgumentException("key '" + name + "' contradicts tls=false in the connection"
                            + " string: drop one of them");
                }
            }
        }
        if (lz4OnTheRegularPath(keys)) {
            throw new IllegalArgumentException("key 'compression' is lz4, which applies to bulk writes only, but key"
                    + " 'write_path' is regular in the connection string: use compression=zstd (or gzip, none) or"
                    + " write_path=bulk");
        }
        if (keys.containsKey("tls_cert") != keys.containsKey("tls_key")) {
            throw new IllegalArgumentException("key '" + (keys.containsKey("tls_cert") ? "tls_cert" : "tls_key")
                    + "' needs its partner in the connection string: mutual TLS takes both tls_cert and tls_key");
        }
        return keys;
    }

    /**
     * Percent-decodes (UTF-8); {@code +} stays a plus. Escapes that do not spell UTF-8 are refused (never read as
     * replacement characters). A secret is never shown in the error.
     */
    private static String decode(String s, String what, boolean secret) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '%') {
                int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
                int lo = hi >= 0 ? Character.digit(s.charAt(i + 2), 16) : -1;
                if (lo < 0) {
                    throw new IllegalArgumentException(what + " in the connection string has a malformed %-escape"
                            + (secret ? "" : " in '" + s + "'") + ": write %XX with two hexadecimal digits");
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                byte[] b = String.valueOf(ch).getBytes(StandardCharsets.UTF_8);
                if (Character.isHighSurrogate(ch) && i + 1 < s.length()) {
                    b = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                    i++;
                }
                out.write(b, 0, b.length);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(out.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(what + " in the connection string has %-escapes that do not spell"
                    + " UTF-8" + (secret ? "" : " in '" + s + "'") + ": percent-encode the UTF-8 bytes of each"
                    + " character (é is %C3%A9)");
        }
    }

    /** @return the endpoints, {@code host:port}, in the string's order */
    public List<String> endpoints() {
        return endpoints;
    }

    /** @return the database ({@code public} when the string names none) */
    public String database() {
        return database;
    }

    /**
     * Tells whether the string sets a key (a query key such as {@code compression}, or {@code hint.ttl}).
     *
     * @param key the key
     * @return true when the string names it
     */
    public boolean has(String key) {
        return keys.containsKey(key);
    }

    /** @return true when the string names a user ({@code user@host}) */
    public boolean hasUser() {
        return user != null;
    }

    /**
     * Tells whether the string names a password ({@code user:password@host}, or one given apart with
     * {@link #withPassword}); a string naming only its user leaves the password to be given apart.
     *
     * @return true when there is a password
     */
    public boolean hasPassword() {
        return password != null;
    }

    /**
     * Builds the client's options: the string's hosts, database and credentials, its keys, the defaults for the rest.
     *
     * @return the options
     */
    public GreptimeOptions options() {
        return applyTo(GreptimeOptions.newBuilder(endpoints, database)).build();
    }

    /**
     * Builds the batching writer's settings: the string's batching keys, the defaults for the rest.
     *
     * @return the settings
     */
    public BatchingWriter.Config batching() {
        return build(BatchingWriter.Config.newBuilder(), Scope.BATCHING);
    }

    /**
     * Builds the per-call context: the string's {@code compression} and {@code hint.*} keys.
     *
     * @return the context
     */
    public Context context() {
        return applyTo(Context.newBuilder()).build();
    }

    /**
     * Applies the string's credentials and client keys to a builder, leaving what the string does not name as
     * the builder has it: a string naming its user without a password keeps the password the builder holds for that
     * user. The hosts and database are not applied (a builder is made with them:
     * {@code GreptimeOptions.newBuilder(c.endpoints(), c.database())}).
     *
     * @param b the builder
     * @return {@code b}
     * @throws IllegalArgumentException naming the key when the values do not fit with the builder's own
     */
    public GreptimeOptions.Builder applyTo(GreptimeOptions.Builder b) {
        if (user != null) {
            AuthInfo now = b.currentAuthInfo();
            String kept = now != null && now.username().equals(user) ? now.password() : "";
            b.authInfo(new AuthInfo(user, password != null ? password : kept));
        }
        Settings s = new Settings(b, null, null);
        apply(s, Scope.OPTIONS);
        if (s.backoffInitial != null || s.backoffMax != null) {
            RetryPolicy now = b.currentRetryPolicy();
            s.retry().backoff(s.backoffInitial != null ? s.backoffInitial : now.initialBackoff(),
                    s.backoffMax != null ? s.backoffMax : now.maxBackoff());
        }
        if (s.tlsOff) {
            b.tls(null);
        }
        if (s.retry != null) {
            try {
                b.retryPolicy(s.retry.build());
            } catch (IllegalArgumentException e) {
                throw refused(given("retry_"), e);
            }
        }
        if (s.tls != null) {
            try {
                b.tls(s.tls.build());
            } catch (IllegalArgumentException e) {
                throw refused(given("tls"), e);
            }
        }
        return b;
    }

    /**
     * Applies the string's batching keys to a batching writer's builder, leaving the rest as the builder has it.
     *
     * @param b the builder
     * @return {@code b}
     */
    public BatchingWriter.Config.Builder applyTo(BatchingWriter.Config.Builder b) {
        apply(new Settings(null, b, null), Scope.BATCHING);
        return b;
    }

    /**
     * Applies the string's {@code compression} and {@code hint.*} keys to a context's builder.
     *
     * @param b the builder
     * @return {@code b}
     */
    public Context.Builder applyTo(Context.Builder b) {
        apply(new Settings(null, null, b), Scope.CONTEXT);
        return b;
    }

    private BatchingWriter.Config build(BatchingWriter.Config.Builder b, Scope scope) {
        apply(new Settings(null, b, null), scope);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw refused(given("batch_", "buffer_rows", "flush_interval", "max_block"), e);
        }
    }

    private List<String> given(String... prefixes) {
        List<String> out = new ArrayList<>();
        for (String k : keys.keySet()) {
            for (String p : prefixes) {
                if (k.startsWith(p)) {
                    out.add(k);
                    break;
                }
            }
        }
        return out;
    }

    private static IllegalArgumentException refused(List<String> keys, IllegalArgumentException e) {
        return new IllegalArgumentException("connection string " + (keys.size() == 1 ? "key '" + keys.get(0) + "'"
                : "keys " + keys) + ": " + e.getMessage(), e);
    }

    private void apply(Settings s, Scope scope) {
        for (Map.Entry<String, String> e : keys.entrySet()) {
            String name = e.getKey();
            Key k = key(name);
            if (k.scope != scope && !(k.scope == Scope.BOTH && scope != Scope.CONTEXT)) {
                continue;
            }
            try {
                k.set.apply(s, name, e.getValue());
            } catch (IllegalArgumentException | NullPointerException | DateTimeParseException x) {
                throw new IllegalArgumentException("connection string key '" + name + "': " + x.getMessage()
                        + " (" + k.type + " expected, got '" + e.getValue() + "')", x);
            }
        }
    }

    /**
     * Renders every key of the query part as a Markdown table: key, type, default and meaning, from the key
     * definitions themselves (the user's guide holds this table).
     *
     * @return the table
     */
    public static String keyTable() {
        StringBuilder sb = new StringBuilder("| key | type | default | meaning |\n| --- | --- | --- | --- |\n");
        for (Key k : KEYS) {
            sb.append("| `").append(k.name).append("` | ").append(k.type).append(" | ")
                    .append(k.defaultOf.apply(Defaults.INSTANCE)).append(" | ")
                    .append(k.doc.replace("|", "\\|")).append(" |\n");
        }
        return sb.toString();
    }

    /**
     * Describes the settings without the password.
     *
     * @return {@code greptimedb://user:***@host:port/db?keys}
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(SCHEME);
        if (user != null) {
            b.append(user).append(password != null ? ":***" : "").append('@');
        }
        b.append(String.join(",", endpoints)).append('/').append(database);
        String sep = "?";
        for (Map.Entry<String, String> e : keys.entrySet()) {
            b.append(sep).append(e.getKey()).append('=').append(e.getValue());
            sep = "&";
        }
        return b.toString();
    }

    // ---- the key registry ----

    /** Which builder a key sets. */
    private enum Scope { OPTIONS, BATCHING, CONTEXT, BOTH }

    /** The builders one application writes to; retry and TLS settings gather here before they are built. */
    private static final class Settings {
        final GreptimeOptions.Builder options;
        final BatchingWriter.Config.Builder batching;
        final Context.Builder context;
        RetryPolicy.Builder retry;
        Duration backoffInitial;
        Duration backoffMax;
        TlsConfig.Builder tls;
        boolean tlsOff;
        Path tlsCert;
        Path tlsKey;

        Settings(GreptimeOptions.Builder options, BatchingWriter.Config.Builder batching, Context.Builder context) {
            this.options = options;
            this.batching = batching;
            this.context = context;
        }

        RetryPolicy.Builder retry() {
            if (retry == null) {
                retry = options.currentRetryPolicy().toBuilder();
            }
            return retry;
        }

        TlsConfig.Builder tls() {
            if (tls == null) {
                tls = options.currentTls() == null ? TlsConfig.newBuilder() : options.currentTls().toBuilder();
            }
            return tls;
        }
    }

    /** Sets one key on the builders. */
    @FunctionalInterface
    private interface Setter {
        void apply(Settings s, String name, String value);
    }

    /** The defaults, read from the builders themselves for the table. */
    private static final class Defaults {
        static final Defaults INSTANCE = new Defaults();
        final GreptimeOptions options = GreptimeOptions.newBuilder("localhost:4001", "public").build();
        final BatchingWriter.Config batching = BatchingWriter.Config.newBuilder().build();
        final RetryPolicy retry = options.retryPolicy();
    }

    private record Key(String name, Scope scope, String type, Function<Defaults, String> defaultOf, String doc,
                       Setter set) {
    }

    private static final List<Key> KEYS = List.of(
            new Key("tls", Scope.OPTIONS, "boolean", d -> "false",
                    "`true` to connect with TLS, trusting the system's certificates unless `tls_ca` names others",
                    (s, n, v) -> {
                        if (bool(v)) {
                            s.tls();
                        } else {
                            s.tlsOff = true;
                        }
                    }),
            new Key("tls_ca", Scope.OPTIONS, "path", d -> "system trust",
                    "PEM file of the certificates to trust (implies TLS)",
                    (s, n, v) -> s.tls().trustCertificates(Path.of(v))),
            new Key("tls_cert", Scope.OPTIONS, "path", d -> "none",
                    "PEM certificate chain of the client, for mutual TLS (with `tls_key`)",
                    (s, n, v) -> {
                        s.tlsCert = Path.of(v);
                        mutual(s);
                    }),
            new Key("tls_key", Scope.OPTIONS, "path", d -> "none",
                    "PEM private key of the client, for mutual TLS (with `tls_cert`)",
                    (s, n, v) -> {
                        s.tlsKey = Path.of(v);
                        mutual(s);
                    }),
            new Key("tls_server_name", Scope.OPTIONS, "text", d -> "the host's name",
                    "name expected in the server's certificate when it differs from the host's",
                    (s, n, v) -> s.tls().serverNameOverride(v)),
            new Key("timezone", Scope.OPTIONS, "text", d -> "UTC",
                    "timezone of the requests: `+08:00` (write `%2B08:00` only if your tool turns `+` into a space)"
                            + " or an IANA name",
                    (s, n, v) -> s.options.timezone(v)),
            new Key("request_timeout", Scope.OPTIONS, "duration", d -> duration(d.options.requestTimeout()),
                    "deadline of each call (one attempt), from send to answer",
                    (s, n, v) -> s.options.requestTimeout(duration(v))),
            new Key("retry_attempts", Scope.OPTIONS, "integer", d -> d.retry.maxAttempts() == Integer.MAX_VALUE
                    ? "until `retry_timeout`" : String.valueOf(d.retry.maxAttempts()),
                    "attempts of a write in all, the first included (1: no retry)",
                    (s, n, v) -> s.retry().maxAttempts(integer(v))),
            new Key("retry_backoff", Scope.OPTIONS, "duration", d -> duration(d.retry.initialBackoff()),
                    "cap of the pause before the first retry (doubling up to `retry_backoff_max`, with jitter)",
                    (s, n, v) -> s.backoffInitial = duration(v)),
            new Key("retry_backoff_max", Scope.OPTIONS, "duration", d -> duration(d.retry.maxBackoff()),
                    "largest pause between retries (at least `retry_backoff`)",
                    (s, n, v) -> s.backoffMax = duration(v)),
            new Key("retry_timeout", Scope.OPTIONS, "duration", d -> duration(d.retry.deliveryTimeout()),
                    "budget of one write, every retry included; then it fails with its last error",
                    (s, n, v) -> s.retry().deliveryTimeout(duration(v))),
            new Key("health_check_interval", Scope.OPTIONS, "duration",
                    d -> duration(d.options.healthCheckInterval()),
                    "how often each host is checked; `0s` turns checks off",
                    (s, n, v) -> s.options.healthCheckInterval(duration(v))),
            new Key("max_message_size", Scope.OPTIONS, "bytes", d -> bytes(d.options.maxMessageSize()),
                    "largest request sent; a larger regular write is split",
                    (s, n, v) -> s.options.maxMessageSize(intBytes(v))),
            new Key("max_inbound_message_size", Scope.OPTIONS, "bytes",
                    d -> bytes(d.options.maxInboundMessageSize()), "largest answer accepted",
                    (s, n, v) -> s.options.maxInboundMessageSize(intBytes(v))),
            new Key("max_in_flight_bytes", Scope.OPTIONS, "bytes", d -> bytes(d.options.maxInFlightBytes()),
                    "encoded bytes unsent or unanswered, client-wide",
                    (s, n, v) -> s.options.maxInFlightBytes(bytes(v))),
            new Key("max_in_flight_requests", Scope.OPTIONS, "integer",
                    d -> String.valueOf(d.options.maxInFlightRequests()),
                    "regular requests in flight, client-wide (0: no cap)",
                    (s, n, v) -> s.options.maxInFlightRequests(integer(v))),
            new Key("when_full", Scope.BOTH, "`block` or `fail_fast`", d -> whenFull(d.options.whenFull()),
                    "when a limit of the client or a batching writer's buffer is reached: wait up to `max_block`,"
                            + " or fail at once",
                    (s, n, v) -> {
                        WhenFull w = whenFull(v);
                        if (s.options != null) {
                            s.options.whenFull(w);
                        }
                        if (s.batching != null) {
                            s.batching.whenFull(w);
                        }
                    }),
            new Key("max_block", Scope.BOTH, "duration", d -> duration(d.options.maxBlock()),
                    "longest wait for room under `when_full=block` (client limits and batching buffers)",
                    (s, n, v) -> {
                        Duration w = duration(v);
                        if (s.options != null) {
                            s.options.maxBlock(w);
                        }
                        if (s.batching != null) {
                            s.batching.maxBlock(w);
                        }
                    }),
            new Key("compression", Scope.CONTEXT, "`none`, `gzip`, `zstd` or `lz4`", d -> "none",
                    "compression of requests (`lz4` on the bulk path only)",
                    (s, n, v) -> s.context.compression(Compression.parse(v))),
            new Key("write_path", Scope.BATCHING, "`regular` or `bulk`",
                    d -> d.batching.path().name().toLowerCase(Locale.ROOT),
                    "path of a batching writer's batches",
                    (s, n, v) -> s.batching.path(path(v))),
            new Key("batch_rows", Scope.BATCHING, "integer", d -> String.valueOf(d.batching.maxBatchRows()),
                    "rows that make a batching writer's batch full",
                    (s, n, v) -> s.batching.maxBatchRows(integer(v))),
            new Key("batch_bytes", Scope.BATCHING, "bytes", d -> bytes(d.batching.maxBatchBytes()),
                    "approximate bytes that make a batch full",
                    (s, n, v) -> s.batching.maxBatchBytes(bytes(v))),
            new Key("flush_interval", Scope.BATCHING, "duration", d -> duration(d.batching.flushInterval()),
                    "longest time a row waits in a batch before it is sent",
                    (s, n, v) -> s.batching.flushInterval(duration(v))),
            new Key("batch_in_flight", Scope.BATCHING, "integer",
                    d -> String.valueOf(d.batching.maxInFlightRequests()),
                    "batches a batching writer has sent and not yet had answered (bulk: at most 31)",
                    (s, n, v) -> s.batching.maxInFlightRequests(integer(v))),
            new Key("buffer_rows", Scope.BATCHING, "integer", d -> String.valueOf(d.batching.maxBufferedRows()),
                    "rows a batching writer holds buffered or in flight before writes wait (at least `batch_rows`)",
                    (s, n, v) -> s.batching.maxBufferedRows(Long.parseLong(v.trim()))),
            new Key("ordered_per_table", Scope.BATCHING, "boolean", d -> String.valueOf(d.batching.orderedPerTable()),
                    "regular path: one batch of a table in flight at a time, so a retried batch never lands after a"
                            + " later one",
                    (s, n, v) -> s.batching.orderedPerTable(bool(v))),
            new Key("hint.<name>", Scope.CONTEXT, "text", d -> "none",
                    "a GreptimeDB hint sent with every write, e.g. `hint.ttl=7d`, `hint.append_mode=true` (table"
                            + " options apply to tables a write creates)",
                    (s, n, v) -> s.context.hint(n.substring(HINT_PREFIX.length()), v)));

    private static Key key(String name) {
        if (name.startsWith(HINT_PREFIX) && name.length() > HINT_PREFIX.length()) {
            return KEYS.get(KEYS.size() - 1);
        }
        for (Key k : KEYS) {
            if (k.name.equals(name) && !k.name.startsWith(HINT_PREFIX)) {
                return k;
            }
        }
        return null;
    }

    /**
     * The name a key is held under: a hint's name trimmed, as {@link Context.Builder#hint} sends it (so
     * {@code hint.ttl } and {@code hint.ttl} are one hint); other keys as written.
     */
    private static String hintName(String name) {
        if (!name.startsWith(HINT_PREFIX)) {
            return name;
        }
        String hint = name.substring(HINT_PREFIX.length()).trim();
        return hint.isEmpty() ? name : HINT_PREFIX + hint;
    }

    private static List<String> keyNames() {
        List<String> out = new ArrayList<>();
        for (Key k : KEYS) {
            if (!k.name.startsWith(HINT_PREFIX)) {
                out.add(k.name);
            }
        }
        return out;
    }

    private static void mutual(Settings s) {
        if (s.tlsCert != null && s.tlsKey != null) {
            s.tls().clientCertificate(s.tlsCert, s.tlsKey);
        }
    }

    private static boolean bool(String v) {
        if (isFalse(v)) {
            return false;
        }
        if (v.trim().equalsIgnoreCase("true")) {
            return true;
        }
        throw new IllegalArgumentException("not true or false");
    }

    /**
     * Tells whether the keys ask for lz4, a bulk-only compression, on the regular path (a bad value is left to the
     * key's own error).
     */
    private static boolean lz4OnTheRegularPath(Map<String, String> keys) {
        if (!keys.containsKey("write_path") || !keys.containsKey("compression")) {
            return false;
        }
        try {
            return path(keys.get("write_path")) == BatchingWriter.Path.Regular
                    && Compression.parse(keys.get("compression")) == Compression.Lz4;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The one reading of a boolean key's {@code false}: blanks around it and its case do not matter. */
    private static boolean isFalse(String v) {
        return v.trim().equalsIgnoreCase("false");
    }

    private static int integer(String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a whole number");
        }
    }

    private static WhenFull whenFull(String v) {
        switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "block":
                return WhenFull.Block;
            case "fail_fast":
                return WhenFull.FailFast;
            default:
                throw new IllegalArgumentException("not block or fail_fast");
        }
    }

    private static String whenFull(WhenFull w) {
        return w == WhenFull.Block ? "block" : "fail_fast";
    }

    private static BatchingWriter.Path path(String v) {
        switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "regular":
                return BatchingWriter.Path.Regular;
            case "bulk":
                return BatchingWriter.Path.Bulk;
            default:
                throw new IllegalArgumentException("not regular or bulk");
        }
    }

    /**
     * Reads a duration: a whole number with a unit, {@code ms}, {@code s}, {@code m} or {@code h} ({@code 500ms},
     * {@code 30s}), or ISO-8601 ({@code PT30S}).
     */
    static Duration duration(String v) {
        Duration d;
        try {
            d = unboundedDuration(v);
        } catch (ArithmeticException e) {
            d = null;
        } catch (DateTimeParseException e) {
            if (!(e.getCause() instanceof ArithmeticException)) {
                throw e;
            }
            d = null;
        }
        if (d == null || d.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException("too long: a duration is at most " + LONGEST.toHours()
                    + "h (about 292 years, the longest wait the client can time in nanoseconds)");
        }
        return d;
    }

    private static Duration unboundedDuration(String v) {
        String t = v.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("p")) {
            return Duration.parse(t.toUpperCase(Locale.ROOT));
        }
        int unit = 0;
        while (unit < t.length() && Character.isDigit(t.charAt(unit))) {
            unit++;
        }
        if (unit == 0 || unit == t.length()) {
            throw new IllegalArgumentException("not a duration such as 500ms, 30s, 5m or 1h");
        }
        long n;
        try {
            n = Long.parseLong(t.substring(0, unit));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration such as 500ms, 30s, 5m or 1h");
        }
        switch (t.substring(unit)) {
            case "ms":
                return Duration.ofMillis(n);
            case "s":
                return Duration.ofSeconds(n);
            case "m":
                return Duration.ofMinutes(n);
            case "h":
                return Duration.ofHours(n);
            default:
                throw new IllegalArgumentException("not a duration such as 500ms, 30s, 5m or 1h");
        }
    }

    private static String duration(Duration d) {
        if (d.toMillis() % 3_600_000 == 0 && !d.isZero()) {
            return d.toHours() + "h";
        }
        if (d.toMillis() % 60_000 == 0 && !d.isZero()) {
            return d.toMinutes() + "m";
        }
        if (d.toMillis() % 1_000 == 0) {
            return d.toSeconds() + "s";
        }
        return d.toMillis() + "ms";
    }

    /** Reads a size: a whole number of bytes, or with {@code KiB}, {@code MiB} or {@code GiB}. */
    static long bytes(String v) {
        String t = v.trim();
        long unit = 1;
        String[][] units = {{"KiB", "1024"}, {"MiB", "1048576"}, {"GiB", "1073741824"}};
        for (String[] u : units) {
            if (t.endsWith(u[0])) {
                unit = Long.parseLong(u[1]);
                t = t.substring(0, t.length() - u[0].length()).trim();
                break;
            }
        }
        try {
            return Math.multiplyExact(Long.parseLong(t), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a size such as 1048576, 512KiB, 64MiB or 1GiB");
        }
    }

    /** Reads a size for a setting held in an int: at most 2GiB - 1. */
    private static int intBytes(String v) {
        long n = bytes(v);
        if (n > Integer.MAX_VALUE || n < Integer.MIN_VALUE) {
            throw new IllegalArgumentException("too large: this setting takes at most " + Integer.MAX_VALUE
                    + " bytes (2GiB - 1)");
        }
        return (int) n;
    }

    private static String bytes(long n) {
        if (n % (1L << 30) == 0) {
            return (n >> 30) + "GiB";
        }
        if (n % (1L << 20) == 0) {
            return (n >> 20) + "MiB";
        }
        if (n % (1L << 10) == 0) {
            return (n >> 10) + "KiB";
        }
        return String.valueOf(n);
    }
}
