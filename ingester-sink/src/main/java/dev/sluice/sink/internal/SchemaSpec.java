package dev.sluice.sink.internal;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.data.VectorType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link TableSchema} in a form an engine can serialize into its job (Flink's job graph, Spark's tasks); each writer builds the schema again.
 *
 * @param table the table name
 * @param columns the columns in order
 */
public record SchemaSpec(String table, List<Col> columns) implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * One column.
     *
     * @param name name
     * @param semantic tag, field or timestamp
     * @param type data type
     * @param precision decimal precision, or -1
     * @param scale decimal scale, or -1
     * @param dim vector dimension, or -1
     */
    public record Col(String name, SemanticType semantic, DataType type, int precision, int scale, int dim)
            implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** Copies the column list. */
    public SchemaSpec {
        columns = List.copyOf(columns);
    }

    /**
     * Describes a schema.
     *
     * @param schema the schema
     * @return its description
     */
    public static SchemaSpec of(TableSchema schema) {
        List<Col> cols = new ArrayList<>();
        for (TableSchema.Column c : schema.columns()) {
            cols.add(new Col(c.name(), c.semanticType(), c.dataType(),
                    c.decimalType() == null ? -1 : c.decimalType().precision(),
                    c.decimalType() == null ? -1 : c.decimalType().scale(),
                    c.vectorType() == null ? -1 : c.vectorType().dim()));
        }
        return new SchemaSpec(schema.tableName(), cols);
    }

    /** @return the schema described */
    public TableSchema toSchema() {
        return toSchema(table);
    }

    /**
     * Builds the schema under another table name.
     *
     * @param tableName the table's name
     * @return the schema
     */
    public TableSchema toSchema(String tableName) {
        TableSchema.Builder b = TableSchema.newBuilder(tableName);
        for (Col c : columns) {
            if (c.dim >= 0) {
                b.addColumn(c.name, c.semantic, c.type, new VectorType(c.dim));
            } else if (c.precision > 0) {
                b.addColumn(c.name, c.semantic, c.type, new DecimalType(c.precision, c.scale));
            } else {
                b.addColumn(c.name, c.semantic, c.type);
            }
        }
        return b.build();
    }

    /** @return the tags and time index only: what a delete addresses rows by */
    public SchemaSpec keyOnly() {
        List<Col> key = new ArrayList<>();
        for (Col c : columns) {
            if (c.semantic != SemanticType.Field) {
                key.add(c);
            }
        }
        return new SchemaSpec(table, key);
    }
}
