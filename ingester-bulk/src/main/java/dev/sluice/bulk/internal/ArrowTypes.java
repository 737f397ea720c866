package dev.sluice.bulk.internal;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** How GreptimeDB column types travel as Arrow types on the bulk path, and the field metadata it reads. */
public final class ArrowTypes {
    /** Field metadata key naming the column's role. */
    public static final String SEMANTIC_TYPE_KEY = "greptime:semantic_type";
    /** Field metadata key marking JSON columns. */
    public static final String TYPE_KEY = "greptime:type";

    private ArrowTypes() {
    }

    /**
     * Returns the Arrow type GreptimeDB expects for a column.
     *
     * @param c the column
     * @return the Arrow type
     */
    public static ArrowType arrowType(TableSchema.Column c) {
        switch (c.dataType()) {
            case Bool: return ArrowType.Bool.INSTANCE;
            case Int8: return new ArrowType.Int(8, true);
            case Int16: return new ArrowType.Int(16, true);
            case Int32: return new ArrowType.Int(32, true);
            case Int64: return new ArrowType.Int(64, true);
            case UInt8: return new ArrowType.Int(8, false);
            case UInt16: return new ArrowType.Int(16, false);
            case UInt32: return new ArrowType.Int(32, false);
            case UInt64: return new ArrowType.Int(64, false);
            case Float32: return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case Float64: return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case String: return ArrowType.Utf8.INSTANCE;
            case Binary: case Json: return ArrowType.Binary.INSTANCE;
            case Date: return new ArrowType.Date(DateUnit.DAY);
            case TimestampSecond: return new ArrowType.Timestamp(TimeUnit.SECOND, null);
            case TimestampMillisecond: return new ArrowType.Timestamp(TimeUnit.MILLISECOND, null);
            case TimestampMicrosecond: return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
            case TimestampNanosecond: return new ArrowType.Timestamp(TimeUnit.NANOSECOND, null);
            case TimeSecond: return new ArrowType.Time(TimeUnit.SECOND, 32);
            case TimeMillisecond: return new ArrowType.Time(TimeUnit.MILLISECOND, 32);
            case TimeMicrosecond: return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
            case TimeNanosecond: return new ArrowType.Time(TimeUnit.NANOSECOND, 64);
            case Decimal128: return new ArrowType.Decimal(c.decimalType().precision(), c.decimalType().scale(), 128);
            default: throw new IllegalStateException(c.dataType().toString());
        }
    }

    /**
     * Builds the Arrow field for a column, with GreptimeDB's metadata; the time index is not nullable.
     *
     * @param c the column
     * @return the field
     */
    public static Field field(TableSchema.Column c) {
        String role = c.semanticType() == SemanticType.Tag ? "tag"
                : c.semanticType() == SemanticType.Field ? "field" : "timestamp";
        Map<String, String> md = c.dataType() == DataType.Json
                ? Map.of(SEMANTIC_TYPE_KEY, role, TYPE_KEY, "Json") : Map.of(SEMANTIC_TYPE_KEY, role);
        return new Field(c.name(), new FieldType(c.semanticType() != SemanticType.Timestamp, arrowType(c), null, md), null);
    }

    /**
     * Builds the Arrow schema for a table.
     *
     * @param schema the table schema
     * @return the Arrow schema, fields in column order
     */
    public static Schema schema(TableSchema schema) {
        return new Schema(fields(schema));
    }

    /**
     * Builds the Arrow fields of a table's columns. The writer works from these, never from an Arrow {@code Schema},
     * whose class initialises Jackson when first used.
     *
     * @param schema the table schema
     * @return the fields, in column order
     */
    public static List<Field> fields(TableSchema schema) {
        List<Field> fields = new ArrayList<>(schema.columnCount());
        for (TableSchema.Column c : schema.columns()) {
            fields.add(field(c));
        }
        return fields;
    }

    /**
     * Reads a column back from an Arrow field carrying GreptimeDB metadata (for servers that create tables
     * from a bulk stream).
     *
     * @param f the field
     * @return the column, or null when the type or metadata has no GreptimeDB column form
     */
    public static TableSchema.Column column(Field f) {
        String role = f.getMetadata().get(SEMANTIC_TYPE_KEY);
        if (role == null) {
            return null;
        }
        SemanticType semantic = role.equals("tag") ? SemanticType.Tag : role.equals("timestamp") ? SemanticType.Timestamp
                : role.equals("field") ? SemanticType.Field : null;
        if (semantic == null) {
            return null;
        }
        boolean json = "Json".equals(f.getMetadata().get(TYPE_KEY));
        for (DataType t : DataType.values()) {
            if (t == DataType.Json && !json || t == DataType.Binary && json || t == DataType.Vector) {
                continue; // vectors are never bulk written (the client refuses them before a writer opens)
            }
            if (t == DataType.Decimal128) {
                if (f.getType() instanceof ArrowType.Decimal) {
                    ArrowType.Decimal d = (ArrowType.Decimal) f.getType();
                    return new TableSchema.Column(f.getName(), semantic, t, new dev.sluice.data.DecimalType(d.getPrecision(), d.getScale()));
                }
                continue;
            }
            TableSchema.Column c = new TableSchema.Column(f.getName(), semantic, t, null);
            if (arrowType(c).equals(f.getType())) {
                return c;
            }
        }
        return null;
    }
}
