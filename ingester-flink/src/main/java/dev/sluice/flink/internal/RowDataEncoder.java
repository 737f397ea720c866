package dev.sluice.flink.internal;

import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sink.internal.SchemaSpec;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;

/**
 * Writes Flink's table rows: {@code INSERT} and {@code UPDATE_AFTER} write the row (GreptimeDB keeps the last
 * write of a key), {@code DELETE} and {@code UPDATE_BEFORE} delete it by tags and time index. Column
 * {@code i} of the table is field {@code i} of the row.
 */
public final class RowDataEncoder implements RowEncoder<RowData> {
    private static final long serialVersionUID = 1L;
    private final SchemaSpec spec;
    private final List<LogicalType> types;
    private final boolean ordered;
    private final List<String> primaryKey;
    private transient TableSchema schema;
    private transient TableSchema keySchema;
    private transient int[] keyFields;
    private transient TypeMapping.Setter[] setters;

    /**
     * Creates the encoder.
     *
     * @param spec the table, one column per field in field order
     * @param types the fields' Flink types
     * @param ordered keep the order of writes per table (the input has updates or deletes)
     * @param primaryKey the Flink table's primary key, or empty when it has none
     */
    public RowDataEncoder(SchemaSpec spec, List<LogicalType> types, boolean ordered, List<String> primaryKey) {
        this.spec = spec;
        this.types = List.copyOf(types);
        this.ordered = ordered;
        this.primaryKey = List.copyOf(primaryKey);
    }

    @Override
    public List<String> primaryKey() {
        return primaryKey;
    }

    @Override
    public void open() {
        schema = spec.toSchema();
        keySchema = spec.keyOnly().toSchema();
        List<Integer> keys = new ArrayList<>();
        for (int i = 0; i < spec.columns().size(); i++) {
            if (spec.columns().get(i).semantic() != SemanticType.Field) {
                keys.add(i);
            }
        }
        keyFields = keys.stream().mapToInt(Integer::intValue).toArray();
        setters = new TypeMapping.Setter[types.size()];
        for (int i = 0; i < setters.length; i++) {
            setters[i] = TypeMapping.setter(types.get(i));
        }
    }

    @Override
    public java.util.List<TableSchema> tables() {
        return java.util.List.of(schema);
    }

    @Override
    public void encode(RowData row, ClientSession session) throws Exception {
        RowKind kind = row.getRowKind();
        switch (kind) {
            case INSERT, UPDATE_AFTER -> session.insert(schema, out -> {
                for (int i = 0; i < setters.length; i++) {
                    if (!row.isNullAt(i)) {
                        setters[i].set(row, i, out, i);
                    }
                }
            });
            // UPDATE_BEFORE retracts a row like DELETE does: the planner does not promise that an UPDATE_AFTER
            // follows (a filter or HAVING after an aggregate may drop it), and when one does, it writes the key back
            // after the delete, in stream order.
            case DELETE, UPDATE_BEFORE -> session.delete(keySchema, out -> {
                for (int k = 0; k < keyFields.length; k++) {
                    int f = keyFields[k];
                    if (!row.isNullAt(f)) {
                        setters[f].set(row, f, out, k);
                    }
                }
            });
            default -> throw new IllegalStateException("unknown row kind " + kind);
        }
    }

    @Override
    public String declaredType(TableSchema table, int column) {
        return types.get(column).asSummaryString() + " in the Flink table";
    }

    @Override
    public String describe(RowData row) {
        StringBuilder b = new StringBuilder(row.getRowKind().shortString()).append('(');
        for (int i = 0; i < types.size(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            Object v = RowData.createFieldGetter(types.get(i), i).getFieldOrNull(row);
            b.append(spec.columns().get(i).name()).append('=').append(v);
        }
        String s = b.append(')').toString();
        return s.length() > 500 ? s.substring(0, 500) + "..." : s;
    }

    @Override
    public boolean ordered() {
        return ordered;
    }
}
