package dev.sluice.testkit.internal;

import dev.sluice.SemanticType;
import dev.sluice.TableSchema;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One table's columns, options and rows. Rows are keyed by (tags, time index) and the last write wins,
 * unless the table is in append mode, where every row is kept. Guarded by the owning {@link Storage}.
 */
final class StoredTable {
    final long id;
    final String name;
    final List<TableSchema.Column> columns = new ArrayList<>();
    final Map<String, String> options;
    private final boolean appendMode;
    private final boolean mergeNonNull;
    private final boolean retainRows;
    private final Map<List<Object>, Object[]> byKey = new LinkedHashMap<>();
    private final List<Object[]> appended = new ArrayList<>();
    private long countOnly;

    StoredTable(long id, String name, List<TableSchema.Column> columns, Map<String, String> options, boolean retainRows) {
        this.id = id;
        this.name = name;
        this.columns.addAll(columns);
        this.options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
        this.appendMode = "true".equalsIgnoreCase(options.get("append_mode"));
        this.mergeNonNull = "last_non_null".equalsIgnoreCase(options.get("merge_mode"));
        this.retainRows = retainRows;
    }

    /**
     * How the server opens an error about this table's (only) region: {@code Invalid request to region
     * <region id>(<table id>, <region number>), reason: }, the region id being {@code table_id << 32 | region}
     * (src/store-api/src/storage/descriptors.rs, RegionId's Display; src/mito2/src/error.rs, InvalidRequest).
     */
    String regionPrefix() {
        return "Invalid request to region " + (id << 32) + "(" + id + ", 0), reason: ";
    }

    void addColumns(List<TableSchema.Column> added) {
        columns.addAll(added);
    }

    int indexOf(String column) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(column)) {
                return i;
            }
        }
        return -1;
    }

    TableSchema.Column timeIndex() {
        for (TableSchema.Column c : columns) {
            if (c.semanticType() == SemanticType.Timestamp) {
                return c;
            }
        }
        throw new IllegalStateException("table without time index");
    }

    boolean appendMode() {
        return appendMode;
    }

    /** Stores one row whose values are aligned with {@link #columns}. */
    void put(Object[] row) {
        if (!retainRows) {
            countOnly++;
            return;
        }
        if (appendMode) {
            appended.add(row);
            return;
        }
        List<Object> key = key(row);
        Object[] old = byKey.get(key);
        if (old != null && mergeNonNull) {
            for (int i = 0; i < row.length; i++) {
                if (row[i] == null && i < old.length) {
                    row[i] = old[i];
                }
            }
        }
        byKey.remove(key);
        byKey.put(key, row);
    }

    /** Counts rows that are not kept. */
    void count(int rows) {
        countOnly += rows;
    }

    /** Removes every row with the key of the given row; returns how many went. */
    int delete(Object[] keyRow) {
        if (!retainRows) {
            return 0;
        }
        List<Object> key = key(keyRow);
        if (appendMode) {
            int before = appended.size();
            appended.removeIf(r -> key(r).equals(key));
            return before - appended.size();
        }
        return byKey.remove(key) != null ? 1 : 0;
    }

    private List<Object> key(Object[] row) {
        List<Object> key = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            SemanticType s = columns.get(i).semanticType();
            if (s == SemanticType.Tag || s == SemanticType.Timestamp) {
                Object v = i < row.length ? row[i] : null;
                key.add(v instanceof byte[] ? ByteBuffer.wrap((byte[]) v) : v);
            }
        }
        return key;
    }

    long rowCount() {
        return retainRows ? (appendMode ? appended.size() : byKey.size()) : countOnly;
    }

    List<Map<String, Object>> rows() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object[] r : appendMode ? appended : byKey.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                Object v = i < r.length ? r[i] : null;
                m.put(columns.get(i).name(), v instanceof byte[] ? Arrays.copyOf((byte[]) v, ((byte[]) v).length) : v);
            }
            out.add(Collections.unmodifiableMap(m));
        }
        return out;
    }
}
