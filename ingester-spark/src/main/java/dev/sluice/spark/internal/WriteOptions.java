package dev.sluice.spark.internal;

import static dev.sluice.spark.GreptimeSparkOptions.*;

import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.sink.internal.ConnectionOverlap;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.spark.GreptimeSparkOptions;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.connector.catalog.TableCatalog;

/**
 * The options of one write, checked: how to reach GreptimeDB and batch rows ({@link SinkSettings}, shared with the
 * Sluice client session), and which table, tags and time index to write.
 *
 * @param sink connection, batching and retry settings
 * @param table the table's name
 * @param tags tag columns named by the options
 * @param timeIndex the time index column named by the options, or empty
 */
public record WriteOptions(SinkSettings sink, String table, List<String> tags, String timeIndex)
        implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The connector's words in the client session's failures: its option names and what Spark does next. */
    static final SinkSettings.Wording WORDING = new SinkSettings.Wording(RETRY_TIMEOUT.name(),
            "Spark retries the task up to spark.task.maxFailures times in all (once in local mode unless the master"
                    + " is local[n,f]); when the tries are used up the write fails: run it again once the server answers",
            "run the write again");
    private static final Pattern DURATION = Pattern.compile("(?i)\\s*(\\d+)\\s*(ms|s|sec|m|min|h)?\\s*");

    /**
     * Reads and checks the options.
     *
     * @param given the options (any case of keys)
     * @param table the table's name, or null to read it from {@code table}
     * @return the checked options
     * @throws IllegalArgumentException naming the option that is missing or wrong
     */
    public static WriteOptions parse(Map<String, String> given, String table) {
        Map<String, String> o = read(given);
        ConnectionConfig connection = CONNECTION.get(o).isEmpty() ? null : connection(o);
        List<String> endpoints = connection != null ? connection.endpoints() : list(ENDPOINTS.get(o));
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("option 'endpoints' (or 'connection') is required: GreptimeDB's gRPC"
                    + " host:port, e.g. .option(\"endpoints\", \"greptime:4001\")");
        }
        String t = table != null ? table : TABLE.get(o);
        if (t.isEmpty()) {
            throw new IllegalArgumentException("option 'table' is required: the GreptimeDB table to write");
        }
        BatchingWriter.Path path = switch (WRITE_PATH.get(o).toLowerCase(Locale.ROOT)) {
            case "regular" -> BatchingWriter.Path.Regular;
            case "bulk" -> BatchingWriter.Path.Bulk;
            default -> throw new IllegalArgumentException("option 'writePath' is '" + WRITE_PATH.get(o)
                    + "': use regular or bulk");
        };
        Map<String, String> hints = new LinkedHashMap<>();
        for (GreptimeSparkOptions.Option h : List.of(TTL, APPEND_MODE, MERGE_MODE)) {
            if (!h.get(o).isEmpty()) {
                hints.put(h.name(), h.get(o));
            }
        }
        int batchRows = positive(o, BATCH_ROWS);
        long buffer = Math.max(positive(o, BUFFER_ROWS), batchRows);
        boolean tls = Boolean.parseBoolean(TLS.get(o));
        SinkSettings s = new SinkSettings(endpoints, DATABASE.get(o), USER.get(o), PASSWORD.get(o), tls,
                TLS_CA.get(o), "", "", "", TIMEZONE.get(o), duration(o, REQUEST_TIMEOUT), 0, Duration.ofMillis(100),
                Duration.ofSeconds(5), duration(o, RETRY_TIMEOUT), path, batchRows, positive(o, BATCH_BYTES, Long.MAX_VALUE),
                duration(o, FLUSH_INTERVAL), positive(o, MAX_IN_FLIGHT), buffer, COMPRESSION.get(o), hints,
                HTTP_ENDPOINT.get(o), "", WORDING);
        if (connection != null) {
            try {
                s = s.connect(CONNECTION.get(o));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("option 'connection': " + e.getMessage(), e);
            }
        }
        return new WriteOptions(s, t, list(TAGS.get(o)), TIME_INDEX.get(o));
    }

    /** The options a connection string sets too, with what the string calls them. */
    private static final Map<GreptimeSparkOptions.Option, String> IN_CONNECTION_STRING = Map.ofEntries(
            Map.entry(ENDPOINTS, ConnectionOverlap.HOSTS), Map.entry(DATABASE, ConnectionOverlap.DATABASE),
            Map.entry(USER, ConnectionOverlap.USER), Map.entry(PASSWORD, ConnectionOverlap.PASSWORD),
            Map.entry(TLS, "tls"), Map.entry(TLS_CA, "tls_ca"), Map.entry(TIMEZONE, "timezone"),
            Map.entry(REQUEST_TIMEOUT, "request_timeout"), Map.entry(RETRY_TIMEOUT, "retry_timeout"),
            Map.entry(WRITE_PATH, "write_path"), Map.entry(BATCH_ROWS, "batch_rows"),
            Map.entry(BATCH_BYTES, "batch_bytes"), Map.entry(FLUSH_INTERVAL, "flush_interval"),
            Map.entry(MAX_IN_FLIGHT, "batch_in_flight"), Map.entry(BUFFER_ROWS, "buffer_rows"),
            Map.entry(COMPRESSION, "compression"), Map.entry(TTL, "hint.ttl"),
            Map.entry(APPEND_MODE, "hint.append_mode"), Map.entry(MERGE_MODE, "hint.merge_mode"));

    /**
     * Reads the connection string and refuses an option given beside it that it sets too.
     *
     * @param o the options
     * @return the string's settings
     */
    private static ConnectionConfig connection(Map<String, String> o) {
        String label = "option '" + CONNECTION.name() + "'";
        ConnectionConfig c = ConnectionOverlap.parse(label, CONNECTION.get(o));
        Map<String, List<String>> settings = new LinkedHashMap<>();
        Map<String, GreptimeSparkOptions.Option> optionOf = new LinkedHashMap<>();
        for (GreptimeSparkOptions.Option opt : all()) {
            String key = IN_CONNECTION_STRING.get(opt);
            if (key != null) {
                settings.put("option '" + opt.name() + "'", List.of(key));
                optionOf.put("option '" + opt.name() + "'", opt);
            }
        }
        // A catalog names the database of each table (its namespace): the same database as the string's is no clash.
        ConnectionOverlap.refuse(c, label, settings, setting -> {
            GreptimeSparkOptions.Option opt = optionOf.get(setting);
            String v = o.get(opt.name());
            return v != null && !v.isBlank() && !(opt == DATABASE && v.strip().equals(c.database()));
        });
        return c;
    }

    private static List<String> list(String v) {
        List<String> out = new ArrayList<>();
        for (String p : v.split("[,;]")) {
            if (!p.isBlank()) {
                out.add(p.strip());
            }
        }
        return out;
    }

    /**
     * Reads the options given, keys in any case. A catalog's {@code CREATE TABLE ... OPTIONS (k = v)} passes
     * {@code option.k} ({@link TableCatalog#OPTION_PREFIX}): such a key is read as option {@code k}, as from
     * {@code TBLPROPERTIES}; the same option given both ways with different values is refused, naming both.
     *
     * @param given the options
     * @return the options by name, case-insensitive
     * @throws IllegalArgumentException naming a key that is not an option, or an option given twice
     */
    private static Map<String, String> read(Map<String, String> given) {
        Map<String, String> o = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        Map<String, String> prefixed = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        int p = TableCatalog.OPTION_PREFIX.length();
        for (Map.Entry<String, String> e : given.entrySet()) {
            String key = e.getKey();
            boolean fromOptions = key.regionMatches(true, 0, TableCatalog.OPTION_PREFIX, 0, p);
            refuseUnknown(key, fromOptions ? key.substring(p) : key);
            (fromOptions ? prefixed : o).put(key, e.getValue());
        }
        for (Map.Entry<String, String> e : prefixed.entrySet()) {
            String name = e.getKey().substring(p);
            String other = o.get(name);
            if (other != null && !other.strip().equals(e.getValue().strip())) {
                throw new IllegalArgumentException("option '" + e.getKey() + "' (a CREATE TABLE's OPTIONS) is '"
                        + e.getValue() + "' but option '" + name + "' is '" + other + "': give it once");
            }
            o.put(name, e.getValue());
        }
        return o;
    }

    /**
     * Refuses a key that is neither an option of the connector nor one Spark itself puts beside them, naming it and
     * the known options nearest to it: a misspelled option would otherwise be ignored (a misspelled {@code tags}
     * creates a table without tags, and rows that differ only in that column replace each other).
     *
     * @param key the key as given
     * @param name the option it names (the key without {@link TableCatalog#OPTION_PREFIX})
     */
    private static void refuseUnknown(String key, String name) {
        Map<String, String> known = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (GreptimeSparkOptions.Option opt : all()) {
            known.put(opt.name(), opt.name());
        }
        if (known.containsKey(name) || SPARKS_OWN.contains(name.toLowerCase(Locale.ROOT))) {
            return;
        }
        int best = Integer.MAX_VALUE;
        List<String> nearest = new ArrayList<>();
        for (String option : known.values()) {
            int d = distance(name.toLowerCase(Locale.ROOT), option.toLowerCase(Locale.ROOT));
            if (d < best) {
                best = d;
                nearest.clear();
            }
            if (d == best) {
                nearest.add(option);
            }
        }
        throw new IllegalArgumentException("option '" + key + "'" + (key.equals(name) ? "" : " (a CREATE TABLE's"
                + " OPTIONS)") + " is not an option of the greptimedb connector: did you mean "
                + String.join(" or ", nearest.stream().map(n -> "'" + n + "'").toList()) + "? (the options are "
                + known.values() + ")");
    }

    /**
     * The keys Spark itself puts beside the connector's options: {@code path} ({@code save(path)},
     * {@code start(path)}), {@code checkpointLocation} (a stream's options reach its sink), and the reserved
     * properties a catalog's {@code CREATE TABLE} passes ({@link TableCatalog}'s {@code PROP_*}).
     */
    private static final java.util.Set<String> SPARKS_OWN = java.util.Set.of("path", "checkpointlocation",
            TableCatalog.PROP_LOCATION, TableCatalog.PROP_IS_MANAGED_LOCATION, TableCatalog.PROP_EXTERNAL,
            TableCatalog.PROP_TABLE_TYPE, TableCatalog.PROP_COMMENT, TableCatalog.PROP_COLLATION,
            TableCatalog.PROP_PROVIDER, TableCatalog.PROP_OWNER);

    /** Edits (insert, delete, replace one character) that turn one word into another. */
    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int replace = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(replace, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /** Reads a whole number from 1 to {@link Integer#MAX_VALUE}, naming the option when it is not. */
    private static int positive(Map<String, String> o, GreptimeSparkOptions.Option opt) {
        return (int) positive(o, opt, Integer.MAX_VALUE);
    }

    /** Reads a whole number from 1 to {@code max}, naming the option when it is not. */
    private static long positive(Map<String, String> o, GreptimeSparkOptions.Option opt, long max) {
        long v;
        try {
            v = Long.parseLong(opt.get(o).replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option '" + opt.name() + "' is '" + opt.get(o)
                    + "': give a whole number", e);
        }
        if (v < 1 || v > max) {
            throw new IllegalArgumentException("option '" + opt.name() + "' is '" + opt.get(o)
                    + "': give a whole number from 1 to " + max + " (the default is " + opt.defaultValue() + ")");
        }
        return v;
    }

    /**
     * Reads a duration such as {@code 200ms}, {@code 30s}, {@code 2min}, {@code 1h} or ISO-8601 {@code PT30S}.
     *
     * @param o the options
     * @param opt the option
     * @return the duration
     */
    static Duration duration(Map<String, String> o, GreptimeSparkOptions.Option opt) {
        String v = opt.get(o);
        Matcher m = DURATION.matcher(v);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "ms" : m.group(2).toLowerCase(Locale.ROOT);
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s", "sec" -> Duration.ofSeconds(n);
                case "m", "min" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        try {
            return Duration.parse(v);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("option '" + opt.name() + "' is '" + v + "': give a duration such as "
                    + Arrays.asList("200ms", "30s", "2min", "1h"), e);
        }
    }
}
