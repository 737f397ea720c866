package dev.sluice.importer.internal.plan;

import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;

/** A stored value as text, as dry runs, collision warnings and rejected rows show it. */
public final class CellText {
    private CellText() {
    }

    /**
     * Renders a stored value as text.
     *
     * @param v the column
     * @param c its schema column
     * @param r the row
     * @return the value's text, {@code NULL} for a null
     */
    public static String cell(ColumnVector v, TableSchema.Column c, int r) {
        if (v.isNull(r)) {
            return "NULL";
        }
        DataType t = c.dataType();
        if (t.isTimestamp()) {
            return Plan.instant(v.getLong(r), t.unitsPerSecond());
        }
        switch (t) {
            case Bool: return Boolean.toString(v.getBool(r));
            case Float32: case Float64: return Double.toString(v.getDouble(r));
            case String: case Json: return v.getString(r);
            case Date: return java.time.LocalDate.ofEpochDay(v.getLong(r)).toString();
            case Decimal128: return v.getDecimal(r).toPlainString();
            case Binary: return java.util.Base64.getEncoder().encodeToString(v.getBytes(r));
            case UInt64: return Long.toUnsignedString(v.getLong(r));
            default: return t.isLongBacked() ? Long.toString(v.getLong(r)) : String.valueOf(v.getString(r));
        }
    }
}
