package dev.sluice.testkit.internal;

import dev.sluice.write.StatusCode;
import dev.sluice.internal.wire.Column;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.Value;
import java.util.ArrayList;
import java.util.List;

/**
 * Column-wise (legacy) inserts and deletes, {@code GreptimeRequest.inserts} (2) and {@code deletes} (5), turned
 * into rows: the server converts them the same way before its row pipeline
 * (src/operator/src/req_convert/insert/column_to_row.rs and .../delete/column_to_row.rs). Each column carries its
 * non-null values in the field of its declared type, and a null mask (bit i, least significant bit first, set
 * when row i is NULL).
 */
public final class ColumnWise {
    private ColumnWise() {
    }

    /**
     * Converts one table's columns into rows.
     *
     * @param table the table, for messages
     * @param columns the columns
     * @param rowCount the request's row count
     * @return the same data as rows
     */
    public static Rows toRows(String table, List<Column> columns, int rowCount) {
        Rows.Builder rows = Rows.newBuilder();
        List<Row.Builder> built = new ArrayList<>(rowCount);
        for (int r = 0; r < rowCount; r++) {
            built.add(Row.newBuilder());
        }
        for (Column c : columns) {
            ColumnSchema.Builder schema = ColumnSchema.newBuilder().setColumnName(c.getColumnName())
                    .setDatatypeValue(c.getDatatypeValue()).setSemanticTypeValue(c.getSemanticTypeValue());
            if (c.hasDatatypeExtension()) {
                schema.setDatatypeExtension(c.getDatatypeExtension());
            }
            if (c.hasOptions()) {
                schema.setOptions(c.getOptions());
            }
            rows.addSchema(schema);
            byte[] mask = c.getNullMask().toByteArray();
            int known = count(c);
            if (known >= 0) {
                // src/operator/src/req_convert/common.rs push_column_to_rows: every set bit of the mask plus every
                // value must make exactly the row count, else InvalidInsertRequest (1004) with this reason.
                int nulls = 0;
                for (byte m : mask) {
                    nulls += Integer.bitCount(m & 0xFF);
                }
                if (nulls + known != rowCount) {
                    throw new ServerError(StatusCode.InvalidArguments, "Invalid InsertRequest, reason: Expecting "
                            + rowCount + " rows of data for column '" + c.getColumnName() + "', but got "
                            + (nulls + known) + ".");
                }
            }
            int nonNull = 0;
            for (int r = 0; r < rowCount; r++) {
                boolean isNull = r / 8 < mask.length && (mask[r / 8] >> (r % 8) & 1) == 1;
                if (isNull) {
                    built.get(r).addValues(Value.getDefaultInstance());
                } else {
                    built.get(r).addValues(value(table, c, nonNull++));
                }
            }
            if (nonNull != Math.max(0, count(c))) {
                throw new ServerError(StatusCode.InvalidArguments, "Column " + c.getColumnName() + " of table " + table
                        + " has " + count(c) + " values, but its null mask leaves " + nonNull + " of " + rowCount
                        + " rows for them");
            }
        }
        for (Row.Builder r : built) {
            rows.addRows(r);
        }
        return rows.build();
    }

    private static int count(Column c) {
        Column.Values v = c.getValues();
        switch (c.getDatatypeValue()) {
            case 0: return v.getBoolValuesCount();
            case 1: return v.getI8ValuesCount();
            case 2: return v.getI16ValuesCount();
            case 3: return v.getI32ValuesCount();
            case 4: return v.getI64ValuesCount();
            case 5: return v.getU8ValuesCount();
            case 6: return v.getU16ValuesCount();
            case 7: return v.getU32ValuesCount();
            case 8: return v.getU64ValuesCount();
            case 9: return v.getF32ValuesCount();
            case 10: return v.getF64ValuesCount();
            // A VECTOR column's values are binary_values (src/api/src/helper.rs, values_with_capacity).
            case 11: case 32: return v.getBinaryValuesCount();
            case 12: case 31: return v.getStringValuesCount();
            case 13: return v.getDateValuesCount();
            case 15: return v.getTimestampSecondValuesCount();
            case 16: return v.getTimestampMillisecondValuesCount();
            case 17: return v.getTimestampMicrosecondValuesCount();
            case 18: return v.getTimestampNanosecondValuesCount();
            case 19: return v.getTimeSecondValuesCount();
            case 20: return v.getTimeMillisecondValuesCount();
            case 21: return v.getTimeMicrosecondValuesCount();
            case 22: return v.getTimeNanosecondValuesCount();
            case 30: return v.getDecimal128ValuesCount();
            default: return -1;
        }
    }

    private static Value value(String table, Column c, int i) {
        Column.Values v = c.getValues();
        if (i >= Math.max(0, count(c))) {
            throw new ServerError(StatusCode.InvalidArguments, "Column " + c.getColumnName() + " of table " + table
                    + " has fewer values than its null mask and row count call for");
        }
        Value.Builder b = Value.newBuilder();
        switch (c.getDatatypeValue()) {
            case 0: return b.setBoolValue(v.getBoolValues(i)).build();
            case 1: return b.setI8Value(v.getI8Values(i)).build();
            case 2: return b.setI16Value(v.getI16Values(i)).build();
            case 3: return b.setI32Value(v.getI32Values(i)).build();
            case 4: return b.setI64Value(v.getI64Values(i)).build();
            case 5: return b.setU8Value(v.getU8Values(i)).build();
            case 6: return b.setU16Value(v.getU16Values(i)).build();
            case 7: return b.setU32Value(v.getU32Values(i)).build();
            case 8: return b.setU64Value(v.getU64Values(i)).build();
            case 9: return b.setF32Value(v.getF32Values(i)).build();
            case 10: return b.setF64Value(v.getF64Values(i)).build();
            case 11: case 32: return b.setBinaryValue(v.getBinaryValues(i)).build();
            case 12: case 31: return b.setStringValue(v.getStringValues(i)).build();
            case 13: return b.setDateValue(v.getDateValues(i)).build();
            case 15: return b.setTimestampSecondValue(v.getTimestampSecondValues(i)).build();
            case 16: return b.setTimestampMillisecondValue(v.getTimestampMillisecondValues(i)).build();
            case 17: return b.setTimestampMicrosecondValue(v.getTimestampMicrosecondValues(i)).build();
            case 18: return b.setTimestampNanosecondValue(v.getTimestampNanosecondValues(i)).build();
            case 19: return b.setTimeSecondValue(v.getTimeSecondValues(i)).build();
            case 20: return b.setTimeMillisecondValue(v.getTimeMillisecondValues(i)).build();
            case 21: return b.setTimeMicrosecondValue(v.getTimeMicrosecondValues(i)).build();
            case 22: return b.setTimeNanosecondValue(v.getTimeNanosecondValues(i)).build();
            case 30: return b.setDecimal128Value(v.getDecimal128Values(i)).build();
            default:
                throw new ServerError(StatusCode.InvalidArguments, "Column " + c.getColumnName() + " of table "
                        + table + " has data type " + c.getDatatypeValue() + ", which a write cannot carry");
        }
    }
}
