package dev.sluice.data;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The shape of a GreptimeDB table: its name and its typed columns, with exactly one timestamp column as the
 * time index. Immutable and safe to share between threads; build one per table and reuse it.
 *
 * <pre>{@code
 * TableSchema schema = TableSchema.newBuilder("metrics")
 *         .addTag("host", DataType.String)
 *         .addField("cpu", DataType.Float64)
 *         .addTimestamp("ts", DataType.TimestampMillisecond)
 *         .build();
 * }</pre>
 */
public final class TableSchema {
    private static final Pattern TABLE_NAME = Pattern.compile("^[a-zA-Z_:-][a-zA-Z0-9_:\\-.@#]*$");
    private static final List<String> RESERVED = List.of("__sequence", "__op_type", "__primary_key");

    /**
     * One column of a schema.
     *
     * @param name the column name (case-sensitive)
     * @param semanticType tag, field or timestamp
     * @param dataType the column type
     * @param decimalType precision and scale for {@link DataType#Decimal128}, null for every other type
     * @param vectorType the dimension of a {@link DataType#Vector}, null for every other type
     */
    public record Column(String name, SemanticType semanticType, DataType dataType, DecimalType decimalType,
            VectorType vectorType) {
        /**
         * A column of any type but {@link DataType#Vector}.
         *
         * @param name the column name (case-sensitive)
         * @param semanticType tag, field or timestamp
         * @param dataType the column type
         * @param decimalType precision and scale for {@link DataType#Decimal128}, null for every other type
         */
        public Column(String name, SemanticType semanticType, DataType dataType, DecimalType decimalType) {
            this(name, semanticType, dataType, decimalType, null);
        }
    }

    private final String tableName;
    private final List<Column> columns;
    /** The same columns as an array: rows read them once per value. */
    private final Column[] columnArray;
    private final Map<String, Integer> indexByName;
    private final int timestampIndex;
    /** Computed once: writers look a row's table up by its schema on every row. */
    private final int hash;

    private TableSchema(String tableName, List<Column> columns, Map<String, Integer> indexByName, int timestampIndex) {
        this.tableName = tableName;
        this.columns = columns;
        this.columnArray = columns.toArray(new Column[0]);
        this.indexByName = indexByName;
        this.timestampIndex = timestampIndex;
        this.hash = Objects.hash(tableName, columns);
    }

    /**
     * Starts a schema.
     *
     * @param tableName the table's name; must match {@code [a-zA-Z_:-][a-zA-Z0-9_:\-.@#]*}
     * @return a builder
     */
    public static Builder newBuilder(String tableName) {
        return new Builder(tableName);
    }

    /**
     * Returns the table name.
     *
     * @return the name
     */
    public String tableName() {
        return tableName;
    }

    /**
     * Returns the columns in declaration order (the order of values in a row).
     *
     * @return an unmodifiable list
     */
    public List<Column> columns() {
        return columns;
    }

    /**
     * Returns the number of columns.
     *
     * @return the column count
     */
    public int columnCount() {
        return columnArray.length;
    }

    /**
     * Returns one column.
     *
     * @param index zero-based position
     * @return the column
     */
    public Column column(int index) {
        return columnArray[index];
    }

    /**
     * Finds a column by name.
     *
     * @param name the column name (case-sensitive)
     * @return its position, or -1 when there is none
     */
    public int indexOf(String name) {
        Integer i = indexByName.get(name);
        return i == null ? -1 : i;
    }

    /**
     * Returns the position of the time index column.
     *
     * @return its zero-based position
     */
    public int timestampIndex() {
        return timestampIndex;
    }

    @Override
    public boolean equals(Object o) {
        if (o == this) {
            return true;
        }
        return o instanceof TableSchema && ((TableSchema) o).hash == hash && ((TableSchema) o).tableName.equals(tableName)
                && ((TableSchema) o).columns.equals(columns);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "TableSchema{" + tableName + ", " + columns + '}';
    }

    /** Collects columns; {@link #build()} checks them all at once. Not thread-safe. */
    public static final class Builder {
        private final String tableName;
        private final List<Column> columns = new ArrayList<>();

        private Builder(String tableName) {
            this.tableName = tableName;
        }

        /**
         * Adds a tag (primary key) column.
         *
         * @param name column name
         * @param type column type
         * @return this builder
         */
        public Builder addTag(String name, DataType type) {
            return addColumn(name, SemanticType.Tag, type);
        }

        /**
         * Adds a field column.
         *
         * @param name column name
         * @param type column type
         * @return this builder
         */
        public Builder addField(String name, DataType type) {
            return addColumn(name, SemanticType.Field, type);
        }

        /**
         * Adds the time index column.
         *
         * @param name column name
         * @param type one of the four timestamp types
         * @return this builder
         */
        public Builder addTimestamp(String name, DataType type) {
            return addColumn(name, SemanticType.Timestamp, type);
        }

        /**
         * Adds a column; a {@link DataType#Decimal128} column gets DECIMAL(38, 10).
         *
         * @param name column name
         * @param semanticType its role
         * @param type its type
         * @return this builder
         */
        public Builder addColumn(String name, SemanticType semanticType, DataType type) {
            return addColumn(name, semanticType, type, type == DataType.Decimal128 ? DecimalType.DEFAULT : null);
        }

        /**
         * Adds a decimal column with its precision and scale.
         *
         * @param name column name
         * @param semanticType its role
         * @param type {@link DataType#Decimal128}
         * @param decimalType precision and scale
         * @return this builder
         */
        public Builder addColumn(String name, SemanticType semanticType, DataType type, DecimalType decimalType) {
            columns.add(new Column(name, semanticType, type, decimalType, null));
            return this;
        }

        /**
         * Adds a vector column with its dimension.
         *
         * @param name column name
         * @param semanticType its role (a field, usually)
         * @param type {@link DataType#Vector}
         * @param vectorType the dimension every value must have
         * @return this builder
         */
        public Builder addColumn(String name, SemanticType semanticType, DataType type, VectorType vectorType) {
            columns.add(new Column(name, semanticType, type, null, vectorType));
            return this;
        }

        /**
         * Checks the columns and builds the schema.
         *
         * @return the schema
         * @throws InvalidDataException naming the table and column when the table name is invalid, a column name
         *     is empty, duplicated or reserved, a type is missing, a Vector column has no dimension (or another
         *     column has one), there is not exactly one timestamp column,
         *     or the timestamp column's type is not a timestamp type
         */
        public TableSchema build() {
            String table = String.valueOf(tableName);
            if (tableName == null || !TABLE_NAME.matcher(tableName).matches()) {
                throw new InvalidDataException(table, null, -1,
                        "invalid table name; it must match [a-zA-Z_:-][a-zA-Z0-9_:\\-.@#]*");
            }
            if (columns.isEmpty()) {
                throw new InvalidDataException(table, null, -1, "a table needs at least a timestamp column");
            }
            Map<String, Integer> index = new HashMap<>();
            int ts = -1;
            for (int i = 0; i < columns.size(); i++) {
                Column c = columns.get(i);
                if (c.name() == null || c.name().isEmpty()) {
                    throw new InvalidDataException(table, String.valueOf(c.name()), -1,
                            "column " + i + " has an empty name");
                }
                if (RESERVED.contains(c.name())) {
                    throw new InvalidDataException(table, c.name(), -1, "the column name is reserved by GreptimeDB");
                }
                if (index.put(c.name(), i) != null) {
                    throw new InvalidDataException(table, c.name(), -1, "duplicate column name");
                }
                if (c.semanticType() == null || c.dataType() == null) {
                    throw new InvalidDataException(table, c.name(), -1, "semantic type and data type are required");
                }
                if (c.decimalType() != null && c.dataType() != DataType.Decimal128) {
                    throw new InvalidDataException(table, c.name(), -1,
                            "a precision and scale only apply to Decimal128, not " + c.dataType());
                }
                if (c.vectorType() != null && c.dataType() != DataType.Vector) {
                    throw new InvalidDataException(table, c.name(), -1,
                            "a vector dimension only applies to Vector, not " + c.dataType());
                }
                if (c.dataType() == DataType.Vector && c.vectorType() == null) {
                    throw new InvalidDataException(table, c.name(), -1, "a Vector column needs its dimension: "
                            + "addColumn(name, semanticType, DataType.Vector, new VectorType(dim))");
                }
                if (c.semanticType() == SemanticType.Timestamp) {
                    if (ts >= 0) {
                        throw new InvalidDataException(table, c.name(), -1, "a second timestamp column; column '"
                                + columns.get(ts).name() + "' is already the time index (add others as fields)");
                    }
                    if (!c.dataType().isTimestamp()) {
                        throw new InvalidDataException(table, c.name(), -1, "the time index must be a timestamp type "
                                + "(TimestampSecond/Millisecond/Microsecond/Nanosecond), not " + c.dataType());
                    }
                    ts = i;
                }
            }
            if (ts < 0) {
                throw new InvalidDataException(table, null, -1,
                        "no timestamp column; exactly one is required as the time index");
            }
            return new TableSchema(tableName, Collections.unmodifiableList(new ArrayList<>(columns)),
                    Collections.unmodifiableMap(index), ts);
        }
    }
}
