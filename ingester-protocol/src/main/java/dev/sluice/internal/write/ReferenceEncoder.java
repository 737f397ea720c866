package dev.sluice.internal.write;

import dev.sluice.internal.model.ArrayColumn;
import com.google.protobuf.ByteString;
import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOp;
import dev.sluice.internal.wire.Decimal128;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.RowDeleteRequest;
import dev.sluice.internal.wire.RowDeleteRequests;
import dev.sluice.internal.wire.RowInsertRequest;
import dev.sluice.internal.wire.RowInsertRequests;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.Value;
import java.util.List;

/**
 * Builds the same request as {@link RequestEncoder} with the generated protobuf builders, one {@code Value}
 * object per cell. Never used to send: it is the reference the direct encoder is checked against, and the
 * baseline of the encoding benchmark.
 */
public final class ReferenceEncoder {
    private ReferenceEncoder() {
    }

    /**
     * Builds the request.
     *
     * @param header the request header
     * @param op insert or delete
     * @param tables the tables
     * @return the message
     */
    public static GreptimeRequest build(RequestHeader header, WriteOp op, List<Table> tables) {
        GreptimeRequest.Builder req = GreptimeRequest.newBuilder().setHeader(header);
        RowInsertRequests.Builder inserts = RowInsertRequests.newBuilder();
        RowDeleteRequests.Builder deletes = RowDeleteRequests.newBuilder();
        for (Table t : tables) {
            TableSchema s = t.schema();
            Rows.Builder rows = Rows.newBuilder();
            int[] cols = new int[s.columnCount()];
            int n = 0;
            for (int i = 0; i < s.columnCount(); i++) {
                if (op == WriteOp.Insert || s.column(i).semanticType() != SemanticType.Field) {
                    cols[n++] = i;
                    rows.addSchema(RequestEncoder.columnSchema(s.column(i)));
                }
            }
            for (int r = 0; r < t.rowCount(); r++) {
                Row.Builder row = Row.newBuilder();
                for (int k = 0; k < n; k++) {
                    row.addValues(value(s.column(cols[k]).dataType(), t.column(cols[k]), r));
                }
                rows.addRows(row);
            }
            if (op == WriteOp.Insert) {
                inserts.addInserts(RowInsertRequest.newBuilder().setTableName(s.tableName()).setRows(rows));
            } else {
                deletes.addDeletes(RowDeleteRequest.newBuilder().setTableName(s.tableName()).setRows(rows));
            }
        }
        return op == WriteOp.Insert ? req.setRowInserts(inserts).build() : req.setRowDeletes(deletes).build();
    }

    static Value value(DataType t, ColumnVector v, int r) {
        Value.Builder b = Value.newBuilder();
        if (v.isNull(r)) {
            return b.build();
        }
        switch (t) {
            case Bool: return b.setBoolValue(v.getBool(r)).build();
            case Int8: return b.setI8Value((int) v.getLong(r)).build();
            case Int16: return b.setI16Value((int) v.getLong(r)).build();
            case Int32: return b.setI32Value((int) v.getLong(r)).build();
            case Int64: return b.setI64Value(v.getLong(r)).build();
            case UInt8: return b.setU8Value((int) v.getLong(r)).build();
            case UInt16: return b.setU16Value((int) v.getLong(r)).build();
            case UInt32: return b.setU32Value((int) v.getLong(r)).build();
            case UInt64: return b.setU64Value(v.getLong(r)).build();
            case Float32: return b.setF32Value((float) v.getDouble(r)).build();
            case Float64: return b.setF64Value(v.getDouble(r)).build();
            case Binary: case Vector: return b.setBinaryValue(ByteString.copyFrom(v.getBytes(r))).build();
            // From the UTF-8 the table holds: a copy, cheaper than the String encoding a caller's builder would do.
            case String: case Json: return b.setStringValueBytes(ByteString.copyFrom(v.getBytes(r))).build();
            case Date: return b.setDateValue((int) v.getLong(r)).build();
            case TimestampSecond: return b.setTimestampSecondValue(v.getLong(r)).build();
            case TimestampMillisecond: return b.setTimestampMillisecondValue(v.getLong(r)).build();
            case TimestampMicrosecond: return b.setTimestampMicrosecondValue(v.getLong(r)).build();
            case TimestampNanosecond: return b.setTimestampNanosecondValue(v.getLong(r)).build();
            case TimeSecond: return b.setTimeSecondValue(v.getLong(r)).build();
            case TimeMillisecond: return b.setTimeMillisecondValue(v.getLong(r)).build();
            case TimeMicrosecond: return b.setTimeMicrosecondValue(v.getLong(r)).build();
            case TimeNanosecond: return b.setTimeNanosecondValue(v.getLong(r)).build();
            case Decimal128: return b.setDecimal128Value(Decimal128.newBuilder()
                    .setHi(((ArrayColumn) v).getDecimalHigh(r)).setLo(((ArrayColumn) v).getDecimalLow(r))).build();
            default: throw new IllegalStateException(t.toString());
        }
    }
}
