package dev.sluice.internal.write;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.ColumnVector;
import dev.sluice.DataType;
import dev.sluice.SemanticType;
import dev.sluice.Table;
import dev.sluice.TableSchema;
import dev.sluice.WriteOp;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnDataTypeExtension;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.DecimalTypeExtension;
import dev.sluice.internal.wire.JsonTypeExtension;
import dev.sluice.internal.wire.ValueFields;
import java.io.IOException;
import java.util.List;

/**
 * Encodes a {@code GreptimeRequest} carrying row inserts or row deletes straight from {@link Table} columns
 * into protobuf wire bytes, without building a message object per value. The bytes are identical to what the
 * generated builders produce for the same rows.
 *
 * <p>Sizing runs once when the encoder is created (protobuf needs every nested length up front); writing
 * then streams into any {@link CodedOutputStream}.
 */
public final class RequestEncoder {
    // Field tags: (field number << 3) | wire type.
    private static final int TAG_HEADER = (1 << 3) | 2;
    private static final int TAG_ROW_INSERTS = (6 << 3) | 2;
    private static final int TAG_ROW_DELETES = (7 << 3) | 2;
    private static final int TAG_FIELD1_LEN = (1 << 3) | 2;
    private static final int TAG_FIELD2_LEN = (2 << 3) | 2;

    private final byte[] header;
    private final boolean delete;
    private final List<Table> tables;
    private final TableEncoding[] encodings;
    private final int listSize;
    private final int size;

    /** Per-table sizes and the column subset that travels. */
    private static final class TableEncoding {
        final Table table;
        final int[] columns;
        final byte[][] schema;
        final int schemaSize;
        final int[] rowSizes;
        final int[] valueSizes;
        /** The rows this encoding carries: {@code [from, to)}. */
        final int from;
        final int to;
        final int rowsSize;
        final int insertSize;

        /** The rows {@code [from, to)} of an encoding already sized: shares its sizes, computes nothing again. */
        TableEncoding(TableEncoding all, int from, int to) {
            this.table = all.table;
            this.columns = all.columns;
            this.schema = all.schema;
            this.schemaSize = all.schemaSize;
            this.rowSizes = all.rowSizes;
            this.valueSizes = all.valueSizes;
            this.from = from;
            this.to = to;
            int rs = schemaSize;
            for (int r = from; r < to; r++) {
                rs += rowEntrySize(rowSizes[r]);
            }
            this.rowsSize = rs;
            this.insertSize = insertSize(table, rs);
        }

        TableEncoding(Table table, boolean delete) {
            this.table = table;
            TableSchema s = table.schema();
            int n = 0;
            int[] cols = new int[s.columnCount()];
            for (int i = 0; i < s.columnCount(); i++) {
                if (!delete || s.column(i).semanticType() != SemanticType.Field) {
                    cols[n++] = i;
                }
            }
            this.columns = java.util.Arrays.copyOf(cols, n);
            this.schema = new byte[n][];
            int rs = 0;
            for (int i = 0; i < n; i++) {
                schema[i] = columnSchema(s.column(columns[i])).toByteArray();
                rs += 1 + CodedOutputStream.computeUInt32SizeNoTag(schema[i].length) + schema[i].length;
            }
            this.schemaSize = rs;
            int rows = table.rowCount();
            this.from = 0;
            this.to = rows;
            this.rowSizes = new int[rows];
            this.valueSizes = new int[rows * n];
            ColumnVector[] vectors = new ColumnVector[n];
            DataType[] types = new DataType[n];
            for (int i = 0; i < n; i++) {
                vectors[i] = table.column(columns[i]);
                types[i] = s.column(columns[i]).dataType();
            }
            for (int r = 0; r < rows; r++) {
                int rowSize = 0;
                for (int i = 0; i < n; i++) {
                    int v = valueSize(types[i], vectors[i], r);
                    valueSizes[r * n + i] = v;
                    rowSize += 1 + CodedOutputStream.computeUInt32SizeNoTag(v) + v;
                }
                rowSizes[r] = rowSize;
                rs += rowEntrySize(rowSize);
            }
            this.rowsSize = rs;
            this.insertSize = insertSize(table, rs);
        }

        static int rowEntrySize(int rowSize) {
            return 1 + CodedOutputStream.computeUInt32SizeNoTag(rowSize) + rowSize;
        }

        static int insertSize(Table table, int rowsSize) {
            return CodedOutputStream.computeStringSize(1, table.tableName())
                    + 1 + CodedOutputStream.computeUInt32SizeNoTag(rowsSize) + rowsSize;
        }
    }

    /**
     * Sizes a request.
     *
     * @param header the serialized {@code RequestHeader}
     * @param op insert or delete (deletes carry only tag and timestamp columns)
     * @param tables the tables, each with at least one row
     */
    public RequestEncoder(byte[] header, WriteOp op, List<Table> tables) {
        this(header, op == WriteOp.Delete, tables, sized(tables, op == WriteOp.Delete));
    }

    private RequestEncoder(byte[] header, boolean delete, List<Table> tables, TableEncoding[] encodings) {
        this.header = header;
        this.delete = delete;
        this.tables = tables;
        this.encodings = encodings;
        int list = 0;
        for (TableEncoding e : encodings) {
            list += 1 + CodedOutputStream.computeUInt32SizeNoTag(e.insertSize) + e.insertSize;
        }
        this.listSize = list;
        this.size = 1 + CodedOutputStream.computeUInt32SizeNoTag(header.length) + header.length
                + 1 + CodedOutputStream.computeUInt32SizeNoTag(list) + list;
    }

    private static TableEncoding[] sized(List<Table> tables, boolean delete) {
        TableEncoding[] out = new TableEncoding[tables.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new TableEncoding(tables.get(i), delete);
        }
        return out;
    }

    /**
     * Splits a one-table request into requests of consecutive rows, each encoding to at most {@code maxBytes}
     * (a single row larger than that travels alone). Reuses the sizes computed for this request.
     *
     * @param maxBytes the largest request wanted
     * @return this request when it fits, else the parts in row order
     * @throws IllegalStateException when the request carries more than one table
     */
    public List<RequestEncoder> split(int maxBytes) {
        if (size <= maxBytes) {
            return List.of(this);
        }
        if (encodings.length != 1) {
            throw new IllegalStateException("only one-table requests are split");
        }
        TableEncoding all = encodings[0];
        // What every part carries besides its rows: header, table name, schema and the nested lengths (5 bytes
        // each at most).
        int fixed = size - all.rowsSize + all.schemaSize + 15;
        int budget = Math.max(1, maxBytes - fixed);
        List<RequestEncoder> parts = new java.util.ArrayList<>();
        int start = all.from;
        int used = 0;
        for (int r = all.from; r < all.to; r++) {
            int entry = TableEncoding.rowEntrySize(all.rowSizes[r]);
            if (r > start && used + entry > budget) {
                parts.add(part(all, start, r));
                start = r;
                used = 0;
            }
            used += entry;
        }
        parts.add(part(all, start, all.to));
        return parts;
    }

    private RequestEncoder part(TableEncoding all, int from, int to) {
        return new RequestEncoder(header, delete, tables, new TableEncoding[] {new TableEncoding(all, from, to)});
    }

    /**
     * Describes what this request carries, for error messages: each table with its row range.
     *
     * @return for example {@code table 'cpu' rows 0..9999}
     */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (TableEncoding e : encodings) {
            sb.append(sb.length() == 0 ? "" : ", ").append("table '").append(e.table.tableName()).append("' rows ")
                    .append(e.from).append("..").append(e.to - 1);
        }
        return sb.toString();
    }

    /**
     * Returns the rows this request carries.
     *
     * @return rows, over all its tables
     */
    public int rowCount() {
        int n = 0;
        for (TableEncoding e : encodings) {
            n += e.to - e.from;
        }
        return n;
    }

    /**
     * Returns the encoded size.
     *
     * @return bytes
     */
    public int size() {
        return size;
    }

    /**
     * Returns the tables this request carries.
     *
     * @return the tables
     */
    public List<Table> tables() {
        return tables;
    }

    /**
     * Writes the request.
     *
     * @param out the destination; the caller flushes it
     * @throws IOException from the destination
     */
    public void writeTo(CodedOutputStream out) throws IOException {
        out.writeUInt32NoTag(TAG_HEADER);
        out.writeUInt32NoTag(header.length);
        out.writeRawBytes(header);
        out.writeUInt32NoTag(delete ? TAG_ROW_DELETES : TAG_ROW_INSERTS);
        out.writeUInt32NoTag(listSize);
        for (TableEncoding e : encodings) {
            out.writeUInt32NoTag(TAG_FIELD1_LEN);
            out.writeUInt32NoTag(e.insertSize);
            out.writeString(1, e.table.tableName());
            out.writeUInt32NoTag(TAG_FIELD2_LEN);
            out.writeUInt32NoTag(e.rowsSize);
            for (byte[] cs : e.schema) {
                out.writeUInt32NoTag(TAG_FIELD1_LEN);
                out.writeUInt32NoTag(cs.length);
                out.writeRawBytes(cs);
            }
            int n = e.columns.length;
            ColumnVector[] vectors = new ColumnVector[n];
            DataType[] types = new DataType[n];
            for (int i = 0; i < n; i++) {
                vectors[i] = e.table.column(e.columns[i]);
                types[i] = e.table.schema().column(e.columns[i]).dataType();
            }
            for (int r = e.from; r < e.to; r++) {
                out.writeUInt32NoTag(TAG_FIELD2_LEN);
                out.writeUInt32NoTag(e.rowSizes[r]);
                for (int i = 0; i < n; i++) {
                    writeValue(out, types[i], vectors[i], r, e.valueSizes[r * n + i]);
                }
            }
        }
    }

    /** The {@code ColumnSchema} message for a column; JSON columns always carry {@code json_type}. */
    static ColumnSchema columnSchema(TableSchema.Column c) {
        ColumnSchema.Builder b = ColumnSchema.newBuilder()
                .setColumnName(c.name())
                .setDatatypeValue(c.dataType().wireNumber())
                .setSemanticTypeValue(c.semanticType().wireNumber());
        if (c.dataType() == DataType.Decimal128) {
            b.setDatatypeExtension(ColumnDataTypeExtension.newBuilder().setDecimalType(DecimalTypeExtension.newBuilder()
                    .setPrecision(c.decimalType().precision()).setScale(c.decimalType().scale())));
        } else if (c.dataType() == DataType.Json) {
            b.setDatatypeExtension(ColumnDataTypeExtension.newBuilder().setJsonType(JsonTypeExtension.JSON_BINARY));
        }
        return b.build();
    }

    /** The {@code Value} oneof field number for a column type. */
    static int valueField(DataType t) {
        return ValueFields.of(t);
    }

    private static int decimalBodySize(long hi, long lo) {
        return (hi != 0 ? 1 + CodedOutputStream.computeInt64SizeNoTag(hi) : 0)
                + (lo != 0 ? 1 + CodedOutputStream.computeInt64SizeNoTag(lo) : 0);
    }

    /** Size of the {@code Value} message body (0 for NULL). */
    static int valueSize(DataType t, ColumnVector v, int r) {
        if (v.isNull(r)) {
            return 0;
        }
        int tag = valueField(t) < 16 ? 1 : 2;
        switch (t) {
            case Bool: return tag + 1;
            case Int8: case Int16: case Int32: case Date:
                return tag + CodedOutputStream.computeInt32SizeNoTag((int) v.getLong(r));
            case UInt8: case UInt16: case UInt32:
                return tag + CodedOutputStream.computeUInt32SizeNoTag((int) v.getLong(r));
            case UInt64:
                return tag + CodedOutputStream.computeUInt64SizeNoTag(v.getLong(r));
            case Float32: return tag + 4;
            case Float64: return tag + 8;
            case Binary: case String: case Json:
                return tag + CodedOutputStream.computeByteArraySizeNoTag(v.getBytes(r));
            case Decimal128: {
                int body = decimalBodySize(v.getDecimalHigh(r), v.getDecimalLow(r));
                return tag + CodedOutputStream.computeUInt32SizeNoTag(body) + body;
            }
            default: // Int64, timestamps, times
                return tag + CodedOutputStream.computeInt64SizeNoTag(v.getLong(r));
        }
    }

    /** Writes one {@code Row.values} entry: tag, length, and the {@code Value} body. */
    static void writeValue(CodedOutputStream out, DataType t, ColumnVector v, int r, int size) throws IOException {
        out.writeUInt32NoTag(TAG_FIELD1_LEN);
        out.writeUInt32NoTag(size);
        if (size == 0) {
            return;
        }
        int f = valueField(t);
        switch (t) {
            case Bool: out.writeBool(f, v.getBool(r)); break;
            case Int8: case Int16: case Int32: case Date: out.writeInt32(f, (int) v.getLong(r)); break;
            case UInt8: case UInt16: case UInt32: out.writeUInt32(f, (int) v.getLong(r)); break;
            case UInt64: out.writeUInt64(f, v.getLong(r)); break;
            case Float32: out.writeFloat(f, (float) v.getDouble(r)); break;
            case Float64: out.writeDouble(f, v.getDouble(r)); break;
            case Binary: case String: case Json: out.writeByteArray(f, v.getBytes(r)); break;
            case Decimal128: {
                long hi = v.getDecimalHigh(r);
                long lo = v.getDecimalLow(r);
                out.writeTag(f, 2);
                out.writeUInt32NoTag(decimalBodySize(hi, lo));
                if (hi != 0) {
                    out.writeInt64(1, hi);
                }
                if (lo != 0) {
                    out.writeInt64(2, lo);
                }
                break;
            }
            default: out.writeInt64(f, v.getLong(r));
        }
    }

    /**
     * Maps a column type to the generated enum (for tests and the generated-builder baseline).
     *
     * @param t the type
     * @return the enum constant
     */
    public static ColumnDataType wireType(DataType t) {
        return ColumnDataType.forNumber(t.wireNumber());
    }
}
