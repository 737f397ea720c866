package dev.sluice.flink.internal;

import dev.sluice.data.TableSchema;
import dev.sluice.mapping.TableMapping;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sink.internal.SchemaCheck;
import dev.sluice.sink.internal.SchemaSpec;

/**
 * Writes records and classes annotated with Sluice's mapping annotations ({@link dev.sluice.mapping.Table},
 * {@link dev.sluice.mapping.Tag}, {@link dev.sluice.mapping.Field}, {@link dev.sluice.mapping.Timestamp}) as one
 * row each, mapped as {@link TableMapping} maps them for {@code GreptimeDB.writeObjects}.
 *
 * @param <T> the annotated type
 */
public final class AnnotatedEncoder<T> implements RowEncoder<T> {
    private static final long serialVersionUID = 1L;
    private final Class<T> type;
    private final SchemaSpec spec;
    private transient TableMapping mapping;
    private transient TableSchema schema;

    /**
     * Reads the annotations.
     *
     * @param type an annotated record or class
     * @throws IllegalArgumentException naming the class and member when the annotations are wrong
     */
    public AnnotatedEncoder(Class<T> type) {
        this.type = type;
        this.spec = SchemaSpec.of(TableMapping.of(type).schema());
    }

    /** @return the table the annotations describe */
    public SchemaSpec spec() {
        return spec;
    }

    @Override
    public void open() {
        mapping = TableMapping.of(type);
        schema = spec.toSchema();
    }

    @Override
    public java.util.List<TableSchema> tables() {
        return java.util.List.of(schema);
    }

    @Override
    public String declaredType(TableSchema table, int column) {
        return SchemaCheck.typeName(spec.columns().get(column)) + " in the mapping of " + type.getName();
    }

    @Override
    public void encode(T element, ClientSession session) throws Exception {
        Object[] values = new Object[schema.columnCount()];
        mapping.values(element, values);
        session.insert(schema, row -> {
            for (int i = 0; i < values.length; i++) {
                if (values[i] != null) {
                    row.setValue(i, values[i]);
                }
            }
        });
    }
}
