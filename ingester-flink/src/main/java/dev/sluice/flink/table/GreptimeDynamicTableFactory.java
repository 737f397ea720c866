package dev.sluice.flink.table;

import static dev.sluice.flink.table.GreptimeConnectorOptions.*;

import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.flink.WritePath;
import dev.sluice.flink.internal.FlinkWording;
import dev.sluice.flink.internal.GreptimeTableSink;
import dev.sluice.flink.internal.TypeMapping;
import dev.sluice.sink.internal.ConnectionOverlap;
import dev.sluice.sink.internal.SchemaSpec;
import dev.sluice.sink.internal.SinkSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * The {@code 'connector' = 'greptimedb'} table sink factory: found by Flink through
 * {@code META-INF/services/org.apache.flink.table.factories.Factory}. Its options are
 * {@link GreptimeConnectorOptions}.
 */
public final class GreptimeDynamicTableFactory implements DynamicTableSinkFactory {
    /** The connector's identifier. */
    public static final String IDENTIFIER = "greptimedb";

    /** Creates the factory (Flink does, through the service loader). */
    public GreptimeDynamicTableFactory() {
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return new LinkedHashSet<>(List.of(ENDPOINTS, CONNECTION, DATABASE, USERNAME, PASSWORD, TLS_ENABLED, TLS_CA, TLS_CERT, TLS_KEY,
                TLS_SERVER_NAME, HTTP_ENDPOINT, TABLE_NAME, TAGS, TIME_INDEX, WRITE_PATH, TTL, APPEND_MODE, MERGE_MODE, HINTS,
                BATCH_ROWS, BATCH_BYTES, FLUSH_INTERVAL, MAX_IN_FLIGHT, BUFFER_ROWS, RETRY_ATTEMPTS, RETRY_BACKOFF,
                RETRY_MAX_BACKOFF, RETRY_TIMEOUT, REQUEST_TIMEOUT, COMPRESSION, TIMEZONE, SINK_PARALLELISM));
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig o = helper.getOptions();
        String flinkTable = context.getObjectIdentifier().asSummaryString();
        try {
            ResolvedSchema rs = context.getCatalogTable().getResolvedSchema();
            List<Column> physical = new ArrayList<>();
            for (Column c : rs.getColumns()) {
                if (c.isPhysical()) {
                    physical.add(c);
                }
            }
            Map<String, String> given = context.getCatalogTable().getOptions();
            ConnectionConfig connection = connection(o, given);
            boolean pathFromConnectionString = connection != null && connection.has("write_path");
            WritePath path = pathFromConnectionString
                    ? connection.batching().path() == BatchingWriter.Path.Bulk ? WritePath.BULK : WritePath.REGULAR
                    : o.get(WRITE_PATH);
            String timeIndex = o.getOptional(TIME_INDEX).orElseGet(() -> soleTimestamp(physical));
            List<String> pk = rs.getPrimaryKey().map(UniqueConstraint::getColumns).orElse(List.of());
            List<String> tags = new ArrayList<>(o.getOptional(TAGS).orElse(pk));
            tags.remove(timeIndex);
            String table = o.getOptional(TABLE_NAME).orElse(context.getObjectIdentifier().getObjectName());
            List<SchemaSpec.Col> cols = new ArrayList<>();
            List<LogicalType> types = new ArrayList<>();
            boolean timeFound = false;
            for (Column c : physical) {
                LogicalType t = c.getDataType().getLogicalType();
                DataType d = TypeMapping.columnType(c.getName(), t, path, pathFromConnectionString);
                SemanticType sem;
                if (c.getName().equals(timeIndex)) {
                    if (!d.isTimestamp()) {
                        throw new IllegalArgumentException("'time-index' column " + timeIndex + " is " + t
                                + "; the time index must be TIMESTAMP(p) or TIMESTAMP_LTZ(p)");
                    }
                    sem = SemanticType.Timestamp;
                    timeFound = true;
                } else if (tags.contains(c.getName())) {
                    sem = SemanticType.Tag;
                } else {
                    sem = SemanticType.Field;
                }
                int p = -1;
                int s = -1;
                if (t instanceof org.apache.flink.table.types.logical.DecimalType dt) {
                    p = dt.getPrecision();
                    s = dt.getScale();
                    new DecimalType(p, s); // checks GreptimeDB's bounds
                }
                cols.add(new SchemaSpec.Col(c.getName(), sem, d, p, s, -1));
                types.add(t);
            }
            if (!timeFound) {
                throw new IllegalArgumentException("'time-index' names " + timeIndex + ", which is not a physical"
                        + " column of the table");
            }
            for (String tag : tags) {
                if (physical.stream().noneMatch(c -> c.getName().equals(tag))) {
                    throw new IllegalArgumentException("tag column " + tag + " is not a physical column of the table");
                }
            }
            Map<String, String> hints = new LinkedHashMap<>(o.getOptional(HINTS).orElse(Map.of()));
            o.getOptional(TTL).ifPresent(v -> hints.put("ttl", v));
            o.getOptional(APPEND_MODE).ifPresent(v -> hints.put("append_mode", v.toString()));
            o.getOptional(MERGE_MODE).ifPresent(v -> hints.put("merge_mode", v));
            SinkSettings settings = new SinkSettings(connection != null ? connection.endpoints() : o.get(ENDPOINTS),
                    o.get(DATABASE), o.getOptional(USERNAME).orElse(""),
                    connection != null && connection.hasUser() ? passwordApart() : o.getOptional(PASSWORD).orElse(""),
                    o.get(TLS_ENABLED), o.getOptional(TLS_CA).orElse(""), o.getOptional(TLS_CERT).orElse(""),
                    o.getOptional(TLS_KEY).orElse(""), o.getOptional(TLS_SERVER_NAME).orElse(""), o.get(TIMEZONE),
                    o.get(REQUEST_TIMEOUT), o.get(RETRY_ATTEMPTS), o.get(RETRY_BACKOFF), o.get(RETRY_MAX_BACKOFF),
                    o.get(RETRY_TIMEOUT), TypeMapping.clientPath(path), o.get(BATCH_ROWS), o.get(BATCH_BYTES).getBytes(),
                    o.get(FLUSH_INTERVAL), o.get(MAX_IN_FLIGHT), o.get(BUFFER_ROWS), o.get(COMPRESSION), hints,
                    o.getOptional(HTTP_ENDPOINT).orElse(""), "",
                    FlinkWording.of(context.getConfiguration().getOptional(RestartStrategyOptions.RESTART_STRATEGY)
                            .orElse("")));
            if (connection != null) {
                settings = settings.connect(o.get(CONNECTION));
            }
            // Upserts by the Flink key overwrite GreptimeDB's row only when that key holds the row's whole identity.
            boolean keyHoldsRowIdentity = !pk.isEmpty() && pk.contains(timeIndex) && pk.containsAll(tags);
            String insertOnlyRefusal = pk.isEmpty() || keyHoldsRowIdentity ? null
                    : keyWithoutRowIdentity(flinkTable, pk, tags, timeIndex);
            if (!pk.isEmpty() && "true".equalsIgnoreCase(settings.hints().get("append_mode"))) {
                throw new IllegalArgumentException("PRIMARY KEY (" + String.join(", ", pk) + ") and append mode ("
                        + "option '" + APPEND_MODE.key() + "' or hint append_mode) contradict each other: a table in"
                        + " append mode keeps every row written to it, so a later row of a key cannot replace the"
                        + " earlier one. Declare no primary key (the tags in option '" + TAGS.key() + "') to keep"
                        + " every row, or leave append mode out");
            }
            return new GreptimeTableSink(settings, new SchemaSpec(table, cols), types, keyHoldsRowIdentity,
                    insertOnlyRefusal, pk, o.getOptional(SINK_PARALLELISM).orElse(null));
        } catch (IllegalArgumentException e) {
            throw new ValidationException("table " + flinkTable + " ('connector'='greptimedb'): " + e.getMessage(), e);
        }
    }

    /**
     * Why an insert-only query cannot go into a table whose primary key leaves out a tag or the time index: the
     * planner has no {@code UPDATE_BEFORE} to give for it, so the row a second insert of a key replaces cannot be
     * found, and GreptimeDB would keep both.
     */
    private static String keyWithoutRowIdentity(String flinkTable, List<String> pk, List<String> tags,
                                                String timeIndex) {
        List<String> rowKey = new ArrayList<>(tags);
        rowKey.add(timeIndex);
        List<String> withRowKey = new ArrayList<>(pk);
        for (String c : rowKey) {
            if (!withRowKey.contains(c)) {
                withRowKey.add(c);
            }
        }
        List<String> left = new ArrayList<>(rowKey);
        left.removeAll(pk);
        return "table " + flinkTable + " ('connector'='greptimedb') cannot take this query: the query only inserts,"
                + " and its PRIMARY KEY (" + String.join(", ", pk) + ") leaves out " + String.join(", ", left)
                + ". GreptimeDB keys a row by its tags and time index (" + String.join(", ", rowKey) + "), so two"
                + " inserts of one key at different times would both be kept, where the primary key says the later"
                + " replaces the earlier. Declare PRIMARY KEY (" + String.join(", ", withRowKey) + ") NOT ENFORCED"
                + " to keep a row per key and time, or declare no primary key (the tags in option '" + TAGS.key()
                + "') to keep every row. A query that updates (GROUP BY, a changelog source) can go into this"
                + " primary key: its updates delete the row they replace";
    }

    /** The options the connection string sets too, with what the string calls them. */
    private static final Map<ConfigOption<?>, String> IN_CONNECTION_STRING = inConnectionString();

    private static Map<ConfigOption<?>, String> inConnectionString() {
        Map<ConfigOption<?>, String> m = new LinkedHashMap<>();
        m.put(ENDPOINTS, ConnectionOverlap.HOSTS);
        m.put(DATABASE, ConnectionOverlap.DATABASE);
        m.put(USERNAME, ConnectionOverlap.USER);
        m.put(PASSWORD, ConnectionOverlap.PASSWORD);
        m.put(TLS_ENABLED, "tls");
        m.put(TLS_CA, "tls_ca");
        m.put(TLS_CERT, "tls_cert");
        m.put(TLS_KEY, "tls_key");
        m.put(TLS_SERVER_NAME, "tls_server_name");
        m.put(WRITE_PATH, "write_path");
        m.put(TTL, "hint.ttl");
        m.put(APPEND_MODE, "hint.append_mode");
        m.put(MERGE_MODE, "hint.merge_mode");
        m.put(BATCH_ROWS, "batch_rows");
        m.put(BATCH_BYTES, "batch_bytes");
        m.put(FLUSH_INTERVAL, "flush_interval");
        m.put(MAX_IN_FLIGHT, "batch_in_flight");
        m.put(BUFFER_ROWS, "buffer_rows");
        m.put(RETRY_ATTEMPTS, "retry_attempts");
        m.put(RETRY_BACKOFF, "retry_backoff");
        m.put(RETRY_MAX_BACKOFF, "retry_backoff_max");
        m.put(RETRY_TIMEOUT, "retry_timeout");
        m.put(REQUEST_TIMEOUT, "request_timeout");
        m.put(COMPRESSION, "compression");
        m.put(TIMEZONE, "timezone");
        return m;
    }

    /**
     * Reads the connection string, refusing an option given beside it that it sets too; without one, requires the
     * endpoints.
     *
     * @return the string's settings, or null when it is not set
     */
    private static ConnectionConfig connection(ReadableConfig o, Map<String, String> given) {
        String text = o.getOptional(CONNECTION).orElse("");
        if (text.isBlank()) {
            if (o.getOptional(ENDPOINTS).orElse(List.of()).isEmpty()) {
                throw new IllegalArgumentException("option 'endpoints' (or 'connection') is required: GreptimeDB's"
                        + " gRPC host:port, e.g. 'endpoints' = 'greptime:4001'");
            }
            return null;
        }
        String label = "option '" + CONNECTION.key() + "'";
        if (carriesPassword(text)) {
            throw new IllegalArgumentException(label + " holds a password (user:password@): Flink prints a table's"
                    + " options in plain text in its errors and keeps them in its catalogs, hiding only options whose"
                    + " name says password. Leave user:password@ out of the string and give option '"
                    + USERNAME.key() + "' and option '" + PASSWORD.key() + "', or name the user in the string"
                    + " (user@host) and set the password in the environment variable "
                    + ConnectionConfig.PASSWORD_VARIABLE + " or the system property "
                    + ConnectionConfig.PASSWORD_PROPERTY + " of the process that plans the job");
        }
        ConnectionConfig c = ConnectionOverlap.parse(label, text);
        Map<String, List<String>> settings = new LinkedHashMap<>();
        Map<String, String> keyOf = new LinkedHashMap<>();
        IN_CONNECTION_STRING.forEach((option, key) -> {
            settings.put("option '" + option.key() + "'", List.of(key));
            keyOf.put("option '" + option.key() + "'", option.key());
        });
        ConnectionOverlap.refuse(c, label, settings, setting -> given.containsKey(keyOf.get(setting)));
        ConnectionOverlap.refuseHints(c, label, "option '" + HINTS.key() + "'",
                o.getOptional(HINTS).orElse(Map.of()).keySet());
        ConnectionOverlap.refuseUnordered(c, label, "(a key's inserts, updates and deletes must land in the"
                + " changelog's order)");
        return c;
    }

    /**
     * Tells whether a connection string holds {@code user:password@}, without parsing the rest. As
     * {@link ConnectionConfig#parse(String)} reads it, the credentials are what comes before the last {@code @} ahead
     * of the query, so a password holding an unencoded {@code /} or {@code #} is a password too.
     */
    static boolean carriesPassword(String text) {
        String rest = text.strip();
        int scheme = rest.indexOf("://");
        if (scheme >= 0) {
            rest = rest.substring(scheme + 3);
        }
        int query = rest.indexOf('?');
        if (query >= 0) {
            rest = rest.substring(0, query);
        }
        int at = rest.lastIndexOf('@');
        return at >= 0 && rest.substring(0, at).indexOf(':') >= 0;
    }

    /**
     * The password of the user a connection string names without one, from where the refusal of a password in the
     * string points: the system property {@value ConnectionConfig#PASSWORD_PROPERTY}, else the environment variable
     * {@value ConnectionConfig#PASSWORD_VARIABLE}, of the process that plans the job (as
     * {@link ConnectionConfig#fromEnvironment()} reads them).
     *
     * @return the password, or empty when neither is set
     */
    private static String passwordApart() {
        String p = System.getProperty(ConnectionConfig.PASSWORD_PROPERTY);
        if (p == null) {
            p = System.getenv(ConnectionConfig.PASSWORD_VARIABLE);
        }
        return p == null ? "" : p;
    }

    private static String soleTimestamp(List<Column> physical) {
        List<String> found = new ArrayList<>();
        for (Column c : physical) {
            LogicalTypeRoot r = c.getDataType().getLogicalType().getTypeRoot();
            if (r == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE || r == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE) {
                found.add(c.getName());
            }
        }
        if (found.size() != 1) {
            throw new IllegalArgumentException("option 'time-index' is required: the table has "
                    + (found.isEmpty() ? "no TIMESTAMP or TIMESTAMP_LTZ column" : "several timestamp columns " + found)
                    + " (name the column GreptimeDB indexes by time)");
        }
        return found.get(0);
    }
}
