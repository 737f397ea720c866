package dev.sluice.testkit.internal;

import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One table's columns, options and rows. Rows are keyed by (tags, time index) and the last write wins (the
 * overwritten row gives up its place: the newer one reads back last), unless the table is in append mode, where
 * every row is kept; {@code merge_mode=last_non_null} keeps a key's older values where the newer row has NULLs.
 *
 * <p>Rows are stored by position in one {@link ColumnStore} per column; overwritten and deleted positions are
 * marked dead and squeezed out when they make up half the table. The key index is an open-addressing table of
 * positions. Guarded by the owning {@link Storage}.
 */
final class StoredTable {
    private static final int EMPTY = 0;
    private static final int TOMBSTONE = -1;

    final long id;
    final String name;
    final List<TableSchema.Column> columns = new ArrayList<>();
    final Map<String, String> options;
    private final boolean appendMode;
    private final boolean mergeNonNull;
    private final boolean retainRows;
    private List<ColumnStore> stores = new ArrayList<>();
    private BitSet dead = new BitSet();
    private int size;
    private int live;
    /** Key index: slot holds position + 1, {@link #EMPTY} or {@link #TOMBSTONE}; unused in append mode. */
    private int[] slots = new int[16];
    private int used;
    private long countOnly;

    StoredTable(long id, String name, List<TableSchema.Column> columns, Map<String, String> options, boolean retainRows) {
        this.id = id;
        this.name = name;
        this.options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
        this.appendMode = "true".equalsIgnoreCase(options.get("append_mode"));
        this.mergeNonNull = "last_non_null".equalsIgnoreCase(options.get("merge_mode"));
        this.retainRows = retainRows;
        addColumns(columns);
    }

    /**
     * How the server opens an error about this table's (only) region: {@code Invalid request to region
     * <region id>(<table id>, <region number>), reason: }, the region id being {@code table_id << 32 | region}
     * (src/store-api/src/storage/descriptors.rs, RegionId's Display; src/mito2/src/error.rs, InvalidRequest).
     */
    String regionPrefix() {
        return regionPrefix(id);
    }

    /** The region error prefix for table {@code id}'s only region (0). */
    static String regionPrefix(long id) {
        return "Invalid request to region " + (id << 32) + "(" + id + ", 0), reason: ";
    }

    /** Adds columns; rows already stored read NULL in them (a new tag is NULL in every older key). */
    void addColumns(List<TableSchema.Column> added) {
        for (TableSchema.Column c : added) {
            columns.add(c);
            stores.add(new ColumnStore(c, size));
        }
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

    private boolean isKey(int column) {
        return columns.get(column).semanticType() != SemanticType.Field;
    }

    /** Stores one row whose values are aligned with {@link #columns}. */
    void put(Object[] row) {
        if (!retainRows) {
            countOnly++;
            return;
        }
        int pos = size++;
        for (int c = 0; c < stores.size(); c++) {
            stores.get(c).set(pos, c < row.length ? row[c] : null);
        }
        live++;
        if (appendMode) {
            return;
        }
        int old = find(hashAt(pos), pos);
        if (old >= 0) {
            if (mergeNonNull) {
                for (int c = 0; c < stores.size(); c++) {
                    if ((c >= row.length || row[c] == null) && stores.get(c).raw(old) != null) {
                        stores.get(c).set(pos, stores.get(c).raw(old));
                    }
                }
            }
            kill(old);
            replaceSlot(old, pos);
        } else {
            insertSlot(hashAt(pos), pos);
        }
        compactIfSparse();
    }

    /** Removes every row; columns and options stay. */
    void truncate() {
        List<ColumnStore> fresh = new ArrayList<>(columns.size());
        for (TableSchema.Column c : columns) {
            fresh.add(new ColumnStore(c, 0));
        }
        stores = fresh;
        dead = new BitSet();
        size = 0;
        live = 0;
        slots = new int[16];
        used = 0;
        countOnly = 0;
    }

    /** Counts rows that are not kept. */
    void count(int rows) {
        countOnly += rows;
    }

    /** Removes every row with the key of the given row (values aligned with {@link #columns}). */
    void delete(Object[] keyRow) {
        if (!retainRows) {
            return;
        }
        if (appendMode) {
            for (int p = 0; p < size; p++) {
                if (!dead.get(p) && sameKey(p, keyRow)) {
                    kill(p);
                }
            }
        } else {
            int hash = 0;
            for (int c = 0; c < stores.size(); c++) {
                if (isKey(c)) {
                    hash = hash * 31 + stores.get(c).keyHashOf(c < keyRow.length ? keyRow[c] : null);
                }
            }
            int mask = slots.length - 1;
            for (int i = spread(hash) & mask; slots[i] != EMPTY; i = (i + 1) & mask) {
                int p = slots[i] - 1;
                if (slots[i] != TOMBSTONE && sameKey(p, keyRow)) {
                    kill(p);
                    slots[i] = TOMBSTONE;
                    break;
                }
            }
        }
        compactIfSparse();
    }

    private boolean sameKey(int pos, Object[] keyRow) {
        for (int c = 0; c < stores.size(); c++) {
            if (isKey(c) && !stores.get(c).sameKey(pos, c < keyRow.length ? keyRow[c] : null)) {
                return false;
            }
        }
        return true;
    }

    private void kill(int pos) {
        dead.set(pos);
        live--;
    }

    private int hashAt(int pos) {
        int hash = 0;
        for (int c = 0; c < stores.size(); c++) {
            if (isKey(c)) {
                hash = hash * 31 + stores.get(c).keyHash(pos);
            }
        }
        return hash;
    }

    private static int spread(int h) {
        return (h ^ (h >>> 16)) * 0x45D9F3B;
    }

    /** The live position other than {@code self} with the same key as {@code self}, or -1. */
    private int find(int hash, int self) {
        int mask = slots.length - 1;
        for (int i = spread(hash) & mask; slots[i] != EMPTY; i = (i + 1) & mask) {
            if (slots[i] == TOMBSTONE) {
                continue;
            }
            int p = slots[i] - 1;
            if (p != self && sameKeyAt(p, self)) {
                return p;
            }
        }
        return -1;
    }

    private boolean sameKeyAt(int a, int b) {
        for (int c = 0; c < stores.size(); c++) {
            if (isKey(c) && !stores.get(c).sameKey(a, b)) {
                return false;
            }
        }
        return true;
    }

    private void replaceSlot(int old, int pos) {
        int mask = slots.length - 1;
        for (int i = spread(hashAt(pos)) & mask; slots[i] != EMPTY; i = (i + 1) & mask) {
            if (slots[i] == old + 1) {
                slots[i] = pos + 1;
                return;
            }
        }
        throw new IllegalStateException("key index lost position " + old);
    }

    /** Indexes a live position not yet in the index. */
    private void insertSlot(int hash, int pos) {
        if ((used + 1) * 4L > slots.length * 3L) {
            // The rebuilt index holds every live position, this one included: indexing it again would leave a
            // second slot that outlives the row and matches its key after the row is gone.
            rehash(capacityFor(live));
            return;
        }
        int mask = slots.length - 1;
        int i = spread(hash) & mask;
        while (slots[i] != EMPTY && slots[i] != TOMBSTONE) {
            i = (i + 1) & mask;
        }
        if (slots[i] == EMPTY) {
            used++;
        }
        slots[i] = pos + 1;
    }

    /** The smallest power of two holding {@code keys} at a load of at most 3/4. */
    private static int capacityFor(int keys) {
        int cap = 16;
        while ((long) keys * 4 > (long) cap * 3) {
            cap <<= 1;
        }
        return cap;
    }

    private void rehash(int capacity) {
        slots = new int[capacity];
        used = 0;
        int mask = capacity - 1;
        for (int p = 0; p < size; p++) {
            if (!dead.get(p)) {
                int i = spread(hashAt(p)) & mask;
                while (slots[i] != EMPTY) {
                    i = (i + 1) & mask;
                }
                slots[i] = p + 1;
                used++;
            }
        }
    }

    /** Rewrites the stores without dead rows once they are half of all positions. */
    private void compactIfSparse() {
        int deadCount = size - live;
        if (deadCount < 4096 || deadCount * 2 < size) {
            return;
        }
        List<ColumnStore> fresh = new ArrayList<>(stores.size());
        for (TableSchema.Column c : columns) {
            fresh.add(new ColumnStore(c, 0));
        }
        int n = 0;
        for (int p = 0; p < size; p++) {
            if (!dead.get(p)) {
                for (int c = 0; c < stores.size(); c++) {
                    fresh.get(c).set(n, stores.get(c).raw(p));
                }
                n++;
            }
        }
        stores = fresh;
        dead = new BitSet();
        size = n;
        live = n;
        if (!appendMode) {
            rehash(capacityFor(n));
        }
    }

    long rowCount() {
        return retainRows ? live : countOnly;
    }

    /** The values of the named columns, one list per name, each in the order of {@link #rows()}. */
    List<List<Object>> columns(List<String> names) {
        List<List<Object>> out = new ArrayList<>(names.size());
        for (String name : names) {
            int c = 0;
            while (c < columns.size() && !columns.get(c).name().equals(name)) {
                c++;
            }
            if (c == columns.size()) {
                throw new IllegalArgumentException("table " + this.name + " has no column " + name);
            }
            ColumnStore store = stores.get(c);
            List<Object> values = new ArrayList<>(live);
            for (int p = 0; p < size; p++) {
                if (!dead.get(p)) {
                    values.add(store.get(p));
                }
            }
            out.add(Collections.unmodifiableList(values));
        }
        return out;
    }

    List<Map<String, Object>> rows() {
        List<Map<String, Object>> out = new ArrayList<>(live);
        for (int p = 0; p < size; p++) {
            if (dead.get(p)) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            for (int c = 0; c < columns.size(); c++) {
                m.put(columns.get(c).name(), stores.get(c).get(p));
            }
            out.add(Collections.unmodifiableMap(m));
        }
        return out;
    }
}
