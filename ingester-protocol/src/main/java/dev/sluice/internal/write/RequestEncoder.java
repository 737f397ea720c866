package dev.sluice.internal.write;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOp;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnDataTypeExtension;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.DecimalTypeExtension;
import dev.sluice.internal.wire.JsonTypeExtension;
import dev.sluice.internal.wire.VectorTypeExtension;
import dev.sluice.internal.wire.ValueFields;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

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

    /**
     * What a table schema puts into every request of one operation, worked out once: the columns that travel,
     * their types and {@code Value} field numbers, and the encoded {@code ColumnSchema} entries (tag, length and
     * message for each column, ready to copy onto the wire).
     */
    static final class SchemaPlan {
        final WeakReference<TableSchema> schema;
        final boolean delete;
        final int[] columns;
        final DataType[] types;
        final int[] fields;
        /** Bytes of each column's {@code Value} oneof tag: 1 for field numbers below 16, else 2. */
        final int[] tagSizes;
        final byte[] encoded;

        private SchemaPlan(TableSchema s, boolean delete) {
            this.schema = new WeakReference<>(s);
            this.delete = delete;
            int n = 0;
            int[] cols = new int[s.columnCount()];
            for (int i = 0; i < s.columnCount(); i++) {
                if (!delete || s.column(i).semanticType() != SemanticType.Field) {
                    cols[n++] = i;
                }
            }
            this.columns = java.util.Arrays.copyOf(cols, n);
            this.types = new DataType[n];
            this.fields = new int[n];
            this.tagSizes = new int[n];
            byte[][] schemas = new byte[n][];
            int size = 0;
            for (int i = 0; i < n; i++) {
                TableSchema.Column c = s.column(columns[i]);
                types[i] = c.dataType();
                fields[i] = valueField(c.dataType());
                tagSizes[i] = fields[i] < 16 ? 1 : 2;
                schemas[i] = columnSchema(c).toByteArray();
                size += 1 + CodedOutputStream.computeUInt32SizeNoTag(schemas[i].length) + schemas[i].length;
            }
            this.encoded = new byte[size];
            CodedOutputStream out = CodedOutputStream.newInstance(encoded);
            try {
                for (byte[] cs : schemas) {
                    out.writeUInt32NoTag(TAG_FIELD1_LEN);
                    out.writeUInt32NoTag(cs.length);
                    out.writeRawBytes(cs);
                }
                out.checkNoSpaceLeft();
            } catch (IOException e) {
                throw new IllegalStateException("the column schemas did not fit their computed size", e);
            }
        }

        /**
         * Returns the plan of a schema, from a small cache keyed by the schema's identity (schemas are immutable
         * and callers reuse one per table, so after the first request a lookup is all a request pays). The cache
         * holds schemas weakly and has a fixed number of slots: a schema evicted by another is simply encoded again.
         */
        static SchemaPlan of(TableSchema s, boolean delete) {
            int slot = (System.identityHashCode(s) * 31 + (delete ? 1 : 0)) & (PLAN_SLOTS - 1);
            SchemaPlan p = PLANS.get(slot);
            if (p != null && p.delete == delete && p.schema.get() == s) {
                return p;
            }
            p = new SchemaPlan(s, delete);
            PLANS.set(slot, p);
            return p;
        }
    }

    private static final int PLAN_SLOTS = 256;
    private static final AtomicReferenceArray<SchemaPlan> PLANS = new AtomicReferenceArray<>(PLAN_SLOTS);

    /** Per-table sizes and the column subset that travels. */
    private static final class TableEncoding {
        final Table table;
        final SchemaPlan plan;
        /** Size of each row's {@code Row} message body. */
        final int[] rowSizes;
        /** The rows this encoding carries: {@code [from, to)}. */
        final int from;
        final int to;
        final int rowsSize;
        final int insertSize;

        /** The rows {@code [from, to)} of an encoding already sized: shares its sizes, computes nothing again. */
        TableEncoding(TableEncoding all, int from, int to) {
            this.table = all.table;
            this.plan = all.plan;
            this.rowSizes = all.rowSizes;
            this.from = from;
            this.to = to;
            int rs = plan.encoded.length;
            for (int r = from; r < to; r++) {
                rs += rowEntrySize(rowSizes[r]);
            }
            this.rowsSize = rs;
            this.insertSize = insertSize(table, rs);
        }

        TableEncoding(Table table, boolean delete) {
            this.table = table;
            this.plan = SchemaPlan.of(table.schema(), delete);
            int rows = table.rowCount();
            this.from = 0;
            this.to = rows;
            this.rowSizes = new int[rows];
            // Column by column: one type per loop, so the type dispatch stays out of the per-cell work.
            for (int i = 0; i < plan.columns.length; i++) {
                addEntrySizes(plan.types[i], plan.tagSizes[i], table.column(plan.columns[i]), rowSizes, rows);
            }
            int rs = plan.encoded.length;
            for (int r = 0; r < rows; r++) {
                rs += rowEntrySize(rowSizes[r]);
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

    /** Size of a {@code Row.values} entry whose {@code Value} body has {@code valueSize} bytes. */
    private static int entrySize(int valueSize) {
        return 1 + CodedOutputStream.computeUInt32SizeNoTag(valueSize) + valueSize;
    }

    /** Adds one column's {@code Row.values} entry to every row's size. */
    private static void addEntrySizes(DataType t, int tag, ColumnVector v, int[] rowSizes, int rows) {
        switch (t) {
            case Bool: case Float32: case Float64: {
                int present = entrySize(tag + (t == DataType.Bool ? 1 : t == DataType.Float32 ? 4 : 8));
                int absent = entrySize(0);
                for (int r = 0; r < rows; r++) {
                    rowSizes[r] += v.isNull(r) ? absent : present;
                }
                return;
            }
            case Binary: case Vector: case String: case Json:
                for (int r = 0; r < rows; r++) {
                    if (v.isNull(r)) {
                        rowSizes[r] += entrySize(0);
                    } else {
                        int len = v.getBytes(r).length;
                        rowSizes[r] += entrySize(tag + CodedOutputStream.computeUInt32SizeNoTag(len) + len);
                    }
                }
                return;
            default:
                for (int r = 0; r < rows; r++) {
                    rowSizes[r] += entrySize(valueSize(t, v, r));
                }
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
        int fixed = size - all.rowsSize + all.plan.encoded.length + 15;
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
            out.writeRawBytes(e.plan.encoded);
            SchemaPlan plan = e.plan;
            int n = plan.columns.length;
            ColumnVector[] vectors = new ColumnVector[n];
            for (int i = 0; i < n; i++) {
                vectors[i] = e.table.column(plan.columns[i]);
            }
            for (int r = e.from; r < e.to; r++) {
                out.writeUInt32NoTag(TAG_FIELD2_LEN);
                out.writeUInt32NoTag(e.rowSizes[r]);
                for (int i = 0; i < n; i++) {
                    writeEntry(out, plan.types[i], plan.fields[i], plan.tagSizes[i], vectors[i], r);
                }
            }
        }
    }

    /** The {@code ColumnSchema} message for a column; JSON columns carry {@code json_type}, vectors {@code vector_type}. */
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
        } else if (c.dataType() == DataType.Vector) {
            // The server reads the dimension from here (src/api/src/helper.rs, ColumnDataTypeWrapper to
            // ConcreteDataType); a missing extension would mean VECTOR(0).
            b.setDatatypeExtension(ColumnDataTypeExtension.newBuilder().setVectorType(
                    VectorTypeExtension.newBuilder().setDim(c.vectorType().dim())));
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
            case Binary: case Vector: case String: case Json:
                return tag + CodedOutputStream.computeByteArraySizeNoTag(v.getBytes(r));
            case Decimal128: {
                int body = decimalBodySize(v.getDecimalHigh(r), v.getDecimalLow(r));
                return tag + CodedOutputStream.computeUInt32SizeNoTag(body) + body;
            }
            default: // Int64, timestamps, times
                return tag + CodedOutputStream.computeInt64SizeNoTag(v.getLong(r));
        }
    }

    /**
     * Writes one {@code Row.values} entry: tag, length, and the {@code Value} body. The length is worked out here
     * from the value, the same way {@link #valueSize} does (the byte-for-byte tests hold the two together).
     */
    static void writeEntry(CodedOutputStream out, DataType t, int f, int tag, ColumnVector v, int r) throws IOException {
        out.writeUInt32NoTag(TAG_FIELD1_LEN);
        if (v.isNull(r)) {
            out.writeUInt32NoTag(0);
            return;
        }
        switch (t) {
            case Bool:
                out.writeUInt32NoTag(tag + 1);
                out.writeBool(f, v.getBool(r));
                break;
            case Int8: case Int16: case Int32: case Date: {
                int x = (int) v.getLong(r);
                out.writeUInt32NoTag(tag + CodedOutputStream.computeInt32SizeNoTag(x));
                out.writeInt32(f, x);
                break;
            }
            case UInt8: case UInt16: case UInt32: {
                int x = (int) v.getLong(r);
                out.writeUInt32NoTag(tag + CodedOutputStream.computeUInt32SizeNoTag(x));
                out.writeUInt32(f, x);
                break;
            }
            case UInt64: {
                long x = v.getLong(r);
                out.writeUInt32NoTag(tag + CodedOutputStream.computeUInt64SizeNoTag(x));
                out.writeUInt64(f, x);
                break;
            }
            case Float32:
                out.writeUInt32NoTag(tag + 4);
                out.writeFloat(f, (float) v.getDouble(r));
                break;
            case Float64:
                out.writeUInt32NoTag(tag + 8);
                out.writeDouble(f, v.getDouble(r));
                break;
            case Binary: case Vector: case String: case Json: {
                byte[] b = v.getBytes(r);
                out.writeUInt32NoTag(tag + CodedOutputStream.computeUInt32SizeNoTag(b.length) + b.length);
                out.writeByteArray(f, b);
                break;
            }
            case Decimal128: {
                long hi = v.getDecimalHigh(r);
                long lo = v.getDecimalLow(r);
                int body = decimalBodySize(hi, lo);
                out.writeUInt32NoTag(tag + CodedOutputStream.computeUInt32SizeNoTag(body) + body);
                out.writeTag(f, 2);
                out.writeUInt32NoTag(body);
                if (hi != 0) {
                    out.writeInt64(1, hi);
                }
                if (lo != 0) {
                    out.writeInt64(2, lo);
                }
                break;
            }
            default: { // Int64, timestamps, times
                long x = v.getLong(r);
                out.writeUInt32NoTag(tag + CodedOutputStream.computeInt64SizeNoTag(x));
                out.writeInt64(f, x);
            }
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
