package dev.sluice.flink.internal;

import dev.sluice.sink.internal.SchemaSpec;
import dev.sluice.sink.internal.SinkSettings;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;

/**
 * The planned {@code greptimedb} table sink: accepts inserts, updates and deletes, and runs
 * {@link GreptimeSinkWriter}s over {@link RowDataEncoder}. GreptimeDB keys a row by its tags and time index; when
 * the Flink table's primary key holds all of those, an update overwrites the key's row and the sink takes the
 * planner's upsert stream. Otherwise an update may move the row (a new time index is a new row), so the sink asks
 * for the full changelog: each {@code UPDATE_BEFORE} carries the old row's tags and time index and deletes it. An
 * insert-only query has no {@code UPDATE_BEFORE} to give, so such a table refuses it at planning: two inserts of one
 * Flink key at different times would both stay, where the primary key says the second replaces the first.
 */
public final class GreptimeTableSink implements DynamicTableSink {
    private final SinkSettings settings;
    private final SchemaSpec spec;
    private final List<LogicalType> types;
    private final boolean upsert;
    /** Why an insert-only query cannot go into this table, or null when it can. */
    private final String insertOnlyRefusal;
    /** The Flink table's primary key, or empty. */
    private final List<String> primaryKey;
    private final Integer parallelism;

    /**
     * Creates the sink.
     *
     * @param settings connection and batching
     * @param spec the GreptimeDB table
     * @param types the physical fields' types
     * @param upsert the Flink table's primary key holds every tag and the time index (updates overwrite in place)
     * @param insertOnlyRefusal why an insert-only query cannot go into the table (a primary key that does not hold
     *     the row's identity), or null when it can
     * @param primaryKey the Flink table's primary key, or empty when it has none (an existing table in append mode
     *     is refused when it has one)
     * @param parallelism the sink's parallelism, or null for the planner's
     */
    public GreptimeTableSink(SinkSettings settings, SchemaSpec spec, List<LogicalType> types, boolean upsert,
                             String insertOnlyRefusal, List<String> primaryKey, Integer parallelism) {
        this.settings = settings;
        this.spec = spec;
        this.types = types;
        this.upsert = upsert;
        this.insertOnlyRefusal = insertOnlyRefusal;
        this.primaryKey = List.copyOf(primaryKey);
        this.parallelism = parallelism;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requested) {
        if (requested.containsOnly(RowKind.INSERT)) {
            if (insertOnlyRefusal != null) {
                throw new ValidationException(insertOnlyRefusal);
            }
            return ChangelogMode.insertOnly();
        }
        if (upsert) {
            // Deletes with every column: the delete needs the time index, which may lie outside the primary key.
            return ChangelogMode.upsert(false);
        }
        // Every kind, UPDATE_BEFORE included even when the query could send upserts: an update that changes the
        // time index or a tag must delete the row it replaces, and only UPDATE_BEFORE says which row that is.
        return ChangelogMode.all();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        RowDataEncoder encoder = new RowDataEncoder(spec, types, true, primaryKey);
        return SinkV2Provider.of(new RowDataSink(settings, encoder), parallelism);
    }

    @Override
    public DynamicTableSink copy() {
        return new GreptimeTableSink(settings, spec, types, upsert, insertOnlyRefusal, primaryKey, parallelism);
    }

    @Override
    public String asSummaryString() {
        return "GreptimeDB(" + spec.table() + ")";
    }

    /** The Sink V2 of table rows. */
    static final class RowDataSink implements Sink<RowData> {
        private static final long serialVersionUID = 1L;
        private final SinkSettings settings;
        private final RowDataEncoder encoder;

        RowDataSink(SinkSettings settings, RowDataEncoder encoder) {
            this.settings = settings;
            this.encoder = encoder;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) throws IOException {
            return new GreptimeSinkWriter<>(settings, encoder, context);
        }
    }
}
