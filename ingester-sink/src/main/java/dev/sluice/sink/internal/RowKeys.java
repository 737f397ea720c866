package dev.sluice.sink.internal;

import dev.sluice.data.ColumnVector;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * Reads which row of GreptimeDB a write or a delete addresses: its table, tags and time index (a row's identity in
 * GreptimeDB), as the client stores them. The row is filled into a scratch table of its schema and its key columns
 * are read back, so a key written with a full row and the same key given to a delete compare equal whatever setters
 * filled them. Used from one thread.
 */
final class RowKeys {
    /**
     * A row's identity.
     *
     * @param table the table
     * @param namesAndValues the tags and time index that are not null, as column name then value, by column name
     */
    record Key(String table, List<Object> namesAndValues) {
    }

    /** A schema's scratch table and its tags and time index, ordered by name. */
    private record Scratch(Table table, int[] keyColumns) {
    }

    private final Map<TableSchema, Scratch> scratch = new HashMap<>();
    private TableSchema lastSchema;
    private Scratch last;

    /**
     * Reads the key of a row.
     *
     * @param schema the row's table: a full row's or a key's (tags and time index only)
     * @param fill sets the row's values
     * @return the key
     * @throws InvalidDataException when a value does not fit its column
     */
    Key of(TableSchema schema, Consumer<RowAppender> fill) {
        return read(schema, t -> {
            RowAppender a = t.appender();
            fill.accept(a);
            a.endRow();
        });
    }

    /**
     * Reads the key of an integration's row.
     *
     * @param row the row: a full row or a key (tags and time index only)
     * @param rows how the row becomes a table's row
     * @param <R> the integration's row
     * @return the key
     * @throws InvalidDataException when a value does not fit its column
     */
    <R> Key of(R row, RefusedRowIsolator.Rows<R> rows) {
        return read(rows.schema(row), t -> rows.append(row, t));
    }

    private Key read(TableSchema schema, Consumer<Table> append) {
        Scratch s = schema == lastSchema ? last : scratch.computeIfAbsent(schema, RowKeys::scratchOf);
        lastSchema = schema;
        last = s;
        Table t = s.table();
        try {
            append.accept(t);
            List<Object> values = new ArrayList<>(2 * s.keyColumns().length);
            for (int c : s.keyColumns()) {
                ColumnVector v = t.column(c);
                if (!v.isNull(0)) {
                    values.add(schema.column(c).name());
                    values.add(value(v));
                }
            }
            return new Key(schema.tableName(), values);
        } finally {
            t.reset();
        }
    }

    private static Scratch scratchOf(TableSchema schema) {
        int[] keys = IntStream.range(0, schema.columnCount())
                .filter(i -> schema.column(i).semanticType() != SemanticType.Field)
                .boxed().sorted(Comparator.comparing(i -> schema.column(i).name()))
                .mapToInt(Integer::intValue).toArray();
        return new Scratch(Table.from(schema, 1), keys);
    }

    /** Row 0's value in a form whose equality is the stored value's. */
    private static Object value(ColumnVector v) {
        return switch (v.dataType()) {
            case Bool -> v.getBool(0);
            case Float32, Float64 -> {
                double d = v.getDouble(0);
                yield d == 0.0 ? 0.0 : d; // -0.0 and 0.0 are one value
            }
            case Decimal128 -> v.getDecimal(0).stripTrailingZeros();
            case Binary, String, Json, Vector -> ByteBuffer.wrap(v.getBytes(0)); // never changed by the table
            default -> v.getLong(0);
        };
    }
}
