package dev.sluice.internal.write;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.model.ArrayColumn;
import dev.sluice.write.WriteOp;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnDataTypeExtension;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.DecimalTypeExtension;
import dev.sluice.internal.wire.JsonTypeExtension;
import dev.sluice.internal.wire.VectorTypeExtension;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Encodes a {@code GreptimeRequest} carrying row inserts or row deletes straight from {@link Table} columns
 * into protobuf wire bytes, without building a message object per value. The bytes are identical to what the
 * generated builders produce for the same rows.
 *
 * <p>Sizing runs once when the encoder is created (protobuf needs every nested length up front). Writing then
 * fills an array: each row's tag and length first, leaving the row's place empty, then the places column by column
 * ({@link #encode} for the whole request, {@link #writeTo} a piece at a time through a scratch array).
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
        final byte[] name;
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
            this.name = all.name;
            this.plan = all.plan;
            this.rowSizes = all.rowSizes;
            this.from = from;
            this.to = to;
            int rs = plan.encoded.length;
            for (int r = from; r < to; r++) {
                rs += rowEntrySize(rowSizes[r]);
            }
            this.rowsSize = rs;
            this.insertSize = insertSize(name, rs);
        }

        TableEncoding(Table table, boolean delete) {
            this.table = table;
            this.name = table.tableName().getBytes(StandardCharsets.UTF_8);
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
            this.insertSize = insertSize(name, rs);
        }

        static int rowEntrySize(int rowSize) {
            return 1 + CodedOutputStream.computeUInt32SizeNoTag(rowSize) + rowSize;
        }

        static int insertSize(byte[] name, int rowsSize) {
            return 1 + CodedOutputStream.computeUInt32SizeNoTag(name.length) + name.length
                    + 1 + CodedOutputStream.computeUInt32SizeNoTag(rowsSize) + rowsSize;
        }
    }

    /** Size of a {@code Row.values} entry whose {@code Value} body has {@code valueSize} bytes. */
    private static int entrySize(int valueSize) {
        return 1 + CodedOutputStream.computeUInt32SizeNoTag(valueSize) + valueSize;
    }

    /** Adds one column's {@code Row.values} entry to every row's size. */
    private static void addEntrySizes(DataType t, int tag, ColumnVector v, int[] rowSizes, int rows) {
        boolean nulls = mayHaveNulls(v, 0, rows);
        switch (t) {
            case Bool: case Float32: case Float64: {
                int present = entrySize(tag + (t == DataType.Bool ? 1 : t == DataType.Float32 ? 4 : 8));
                int absent = entrySize(0);
                if (!nulls) {
                    for (int r = 0; r < rows; r++) {
                        rowSizes[r] += present;
                    }
                    return;
                }
                for (int r = 0; r < rows; r++) {
                    rowSizes[r] += v.isNull(r) ? absent : present;
                }
                return;
            }
            case Binary: case Vector: case String: case Json:
                for (int r = 0; r < rows; r++) {
                    if (nulls && v.isNull(r)) {
                        rowSizes[r] += entrySize(0);
                    } else {
                        int len = byteLength(v, r);
                        rowSizes[r] += entrySize(tag + CodedOutputStream.computeUInt32SizeNoTag(len) + len);
                    }
                }
                return;
            default:
                if (t.isLongBacked()) {
                    // Every value is one varint: its entry is the entry tag and length, the value's tag, the varint.
                    int widen = widening(t);
                    int absent = entrySize(0);
                    for (int r = 0; r < rows; r++) {
                        rowSizes[r] += nulls && v.isNull(r) ? absent
                                : 2 + tag + CodedOutputStream.computeUInt64SizeNoTag(widen(v.getLong(r), widen));
                    }
                    return;
                }
                for (int r = 0; r < rows; r++) {
                    rowSizes[r] += entrySize(valueSize(t, v, r));
                }
        }
    }

    /** How a long-backed type's stored value becomes its varint: as it is (0), as a signed int32 (1), as a uint32 (2). */
    private static int widening(DataType t) {
        switch (t) {
            case Int8: case Int16: case Int32: case Date:
                return 1;
            case UInt8: case UInt16: case UInt32:
                return 2;
            default:
                return 0;
        }
    }

    /**
     * The varint a long-backed value travels as: negative int32s are sign-extended to ten bytes, as protobuf writes
     * them; uint32s are their low 32 bits.
     */
    private static long widen(long x, int widening) {
        return widening == 0 ? x : widening == 1 ? (int) x : x & 0xFFFF_FFFFL;
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
     * Encodes the whole request into the start of an array.
     *
     * @param dst an array of at least {@link #size()} bytes
     * @return the bytes written, {@link #size()}
     * @throws IllegalArgumentException when the array is too small
     */
    public int encode(byte[] dst) {
        if (dst.length < size) {
            throw new IllegalArgumentException("the request needs " + size + " bytes, the array has " + dst.length);
        }
        try {
            Sink s = new Sink(dst, null, rowCount());
            write(s);
            return s.pos;
        } catch (IOException e) {
            throw new IllegalStateException("an array sink does not do I/O", e);
        }
    }

    /**
     * Writes the request to a stream in pieces encoded into a scratch array: rows are grouped so that each
     * piece fills the array, and a row larger than the array is encoded into an array of its own. With a scratch
     * array of at least {@link #size()} bytes the stream sees a single write.
     *
     * @param out the destination
     * @param scratch an array only this call uses while it runs (any size above zero)
     * @throws IOException from the destination
     */
    public void writeTo(OutputStream out, byte[] scratch) throws IOException {
        Sink s = new Sink(scratch, out, rowCount());
        write(s);
        s.flush();
    }

    private void write(Sink s) throws IOException {
        s.varint(TAG_HEADER);
        s.varint(header.length);
        s.raw(header);
        s.varint(delete ? TAG_ROW_DELETES : TAG_ROW_INSERTS);
        s.varint(listSize);
        for (TableEncoding e : encodings) {
            s.varint(TAG_FIELD1_LEN);
            s.varint(e.insertSize);
            s.varint(TAG_FIELD1_LEN);
            s.varint(e.name.length);
            s.raw(e.name);
            s.varint(TAG_FIELD2_LEN);
            s.varint(e.rowsSize);
            s.raw(e.plan.encoded);
            writeRows(e, s);
        }
    }

    /** Encodes the rows of one table into the sink, as many at a time as fit its array. */
    private static void writeRows(TableEncoding e, Sink s) throws IOException {
        int r = e.from;
        while (r < e.to) {
            int first = TableEncoding.rowEntrySize(e.rowSizes[r]);
            if (first > s.buf.length) {
                s.flush();
                byte[] own = new byte[first];
                encodeRows(e, r, r + 1, own, 0, s.at);
                s.out.write(own);
                r++;
                continue;
            }
            if (s.pos + first > s.buf.length) {
                s.flush();
            }
            int end = r;
            int p = s.pos;
            while (end < e.to) {
                int entry = TableEncoding.rowEntrySize(e.rowSizes[end]);
                if (p + entry > s.buf.length) {
                    break;
                }
                p += entry;
                end++;
            }
            encodeRows(e, r, end, s.buf, s.pos, s.at);
            s.pos = p;
            r = end;
        }
    }

    /** Rows encoded together, column by column: the row positions they need fit a small array reused per request. */
    private static final int ROW_BLOCK = 256;

    /**
     * Encodes the rows {@code [from, to)} at {@code start}, {@code at.length} rows at a time: first each row's tag and
     * length, which leaves a hole of the row's size after it, then the holes column by column (one type per loop, so
     * the type dispatch stays out of the per-cell work, as in sizing).
     */
    private static void encodeRows(TableEncoding e, int from, int to, byte[] buf, int start, int[] at) {
        SchemaPlan plan = e.plan;
        int p = start;
        for (int block = from; block < to; block += at.length) {
            int end = Math.min(to, block + at.length);
            for (int r = block; r < end; r++) {
                buf[p++] = (byte) TAG_FIELD2_LEN;
                p = putVarint(buf, p, e.rowSizes[r]);
                at[r - block] = p;
                p += e.rowSizes[r];
            }
            for (int i = 0; i < plan.columns.length; i++) {
                writeColumn(plan.types[i], plan.fields[i], e.table.column(plan.columns[i]), block, end, buf, at);
            }
        }
    }

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int WIRE_VARINT = 0;
    private static final int WIRE_FIXED64 = 1;
    private static final int WIRE_LEN = 2;
    private static final int WIRE_FIXED32 = 5;

    /**
     * Writes one column's {@code Row.values} entry (tag, length, {@code Value} body) into every row's hole and
     * moves each row's position past it. A NULL is an empty {@code Value}. The lengths are worked out the way
     * {@link #valueSize} works them out (the byte-for-byte tests hold the two together).
     */
    private static void writeColumn(DataType t, int f, ColumnVector v, int from, int to, byte[] buf, int[] at) {
        boolean nulls = mayHaveNulls(v, from, to);
        switch (t) {
            case Float64: case Float32: {
                boolean wide = t == DataType.Float64;
                int tag = (f << 3) | (wide ? WIRE_FIXED64 : WIRE_FIXED32);
                int tagSize = tag < 128 ? 1 : 2;
                byte length = (byte) (tagSize + (wide ? 8 : 4));
                for (int r = from; r < to; r++) {
                    int p = at[r - from];
                    if (nulls && v.isNull(r)) {
                        at[r - from] = putNull(buf, p);
                        continue;
                    }
                    buf[p] = (byte) TAG_FIELD1_LEN;
                    buf[p + 1] = length;
                    p = putTag(buf, p + 2, tag, tagSize);
                    if (wide) {
                        LONG_LE.set(buf, p, Double.doubleToRawLongBits(v.getDouble(r)));
                        at[r - from] = p + 8;
                    } else {
                        INT_LE.set(buf, p, Float.floatToRawIntBits((float) v.getDouble(r)));
                        at[r - from] = p + 4;
                    }
                }
                return;
            }
            case Binary: case Vector: case String: case Json: {
                int tag = (f << 3) | WIRE_LEN;
                int tagSize = tag < 128 ? 1 : 2;
                for (int r = from; r < to; r++) {
                    int p = at[r - from];
                    if (nulls && v.isNull(r)) {
                        at[r - from] = putNull(buf, p);
                        continue;
                    }
                    buf[p] = (byte) TAG_FIELD1_LEN;
                    int n = byteLength(v, r);
                    if (n < 126 - tagSize) {
                        // Entry length and text length each fit one byte.
                        buf[p + 1] = (byte) (tagSize + 1 + n);
                        p = putTag(buf, p + 2, tag, tagSize);
                        buf[p++] = (byte) n;
                    } else {
                        p = putVarint(buf, p + 1, tagSize + CodedOutputStream.computeUInt32SizeNoTag(n) + n);
                        p = putTag(buf, p, tag, tagSize);
                        p = putVarint(buf, p, n);
                    }
                    copyBytes(v, r, buf, p);
                    at[r - from] = p + n;
                }
                return;
            }
            default: {
                if (!t.isLongBacked()) {
                    for (int r = from; r < to; r++) {
                        at[r - from] = writeOther(t, f, v, r, buf, at[r - from]);
                    }
                    return;
                }
                // One varint per value, as writeOther writes it, with the type's tag and widening worked out once.
                int tag = (f << 3) | WIRE_VARINT;
                int tagSize = tag < 128 ? 1 : 2;
                int widen = widening(t);
                for (int r = from; r < to; r++) {
                    int p = at[r - from];
                    if (nulls && v.isNull(r)) {
                        at[r - from] = putNull(buf, p);
                        continue;
                    }
                    long x = widen(v.getLong(r), widen);
                    buf[p] = (byte) TAG_FIELD1_LEN;
                    buf[p + 1] = (byte) (tagSize + CodedOutputStream.computeUInt64SizeNoTag(x));
                    p = putTag(buf, p + 2, tag, tagSize);
                    at[r - from] = putVarint(buf, p, x);
                }
            }
        }
    }

    /**
     * The byte length of a text or binary value: an {@link ArrayColumn} knows it without encoding (it may hold
     * long ASCII text as the caller's {@code String}); any other column is asked for its bytes.
     */
    private static int byteLength(ColumnVector v, int r) {
        return v instanceof ArrayColumn a ? a.byteLength(r) : v.getBytes(r).length;
    }

    /** Copies a text or binary value's bytes, {@link #byteLength} of them, into the request. */
    private static void copyBytes(ColumnVector v, int r, byte[] buf, int p) {
        if (v instanceof ArrayColumn a) {
            a.copyBytes(r, buf, p);
        } else {
            byte[] b = v.getBytes(r);
            System.arraycopy(b, 0, buf, p, b.length);
        }
    }

    /** False when the column is known to have no null among the rows, so the per-row check can be skipped. */
    private static boolean mayHaveNulls(ColumnVector v, int from, int to) {
        return !(v instanceof ArrayColumn a) || a.anyNull(from, to);
    }

    /** Writes a NULL's entry, an empty {@code Value}; returns the position after it. */
    private static int putNull(byte[] buf, int p) {
        buf[p] = (byte) TAG_FIELD1_LEN;
        buf[p + 1] = 0;
        return p + 2;
    }

    /** Writes a field tag of one or two bytes (every {@code Value} field number is below 2,048). */
    private static int putTag(byte[] buf, int p, int tag, int tagSize) {
        if (tagSize == 1) {
            buf[p] = (byte) tag;
            return p + 1;
        }
        buf[p] = (byte) ((tag & 0x7F) | 0x80);
        buf[p + 1] = (byte) (tag >>> 7);
        return p + 2;
    }

    /** Writes one entry of a varint-coded or Decimal128 column; returns the position after it. */
    private static int writeOther(DataType t, int f, ColumnVector v, int r, byte[] buf, int p) {
        if (v.isNull(r)) {
            return putNull(buf, p);
        }
        buf[p++] = (byte) TAG_FIELD1_LEN;
        int tag = (f << 3) | (t == DataType.Decimal128 ? WIRE_LEN : WIRE_VARINT);
        int tagSize = CodedOutputStream.computeUInt32SizeNoTag(tag);
        long x;
        switch (t) {
            case Bool:
                x = v.getBool(r) ? 1 : 0;
                break;
            case Int8: case Int16: case Int32: case Date:
                x = (int) v.getLong(r); // negative int32s are sign-extended to ten bytes, as protobuf writes them
                break;
            case UInt8: case UInt16: case UInt32:
                x = v.getLong(r) & 0xFFFF_FFFFL;
                break;
            case Decimal128: {
                long hi = ((ArrayColumn) v).getDecimalHigh(r);
                long lo = ((ArrayColumn) v).getDecimalLow(r);
                int body = decimalBodySize(hi, lo);
                p = putVarint(buf, p, tagSize + CodedOutputStream.computeUInt32SizeNoTag(body) + body);
                p = putVarint(buf, p, tag);
                p = putVarint(buf, p, body);
                if (hi != 0) {
                    buf[p++] = (1 << 3) | WIRE_VARINT;
                    p = putVarint(buf, p, hi);
                }
                if (lo != 0) {
                    buf[p++] = (2 << 3) | WIRE_VARINT;
                    p = putVarint(buf, p, lo);
                }
                return p;
            }
            default: // Int64, UInt64, timestamps, times
                x = v.getLong(r);
        }
        p = putVarint(buf, p, tagSize + CodedOutputStream.computeUInt64SizeNoTag(x));
        p = putVarint(buf, p, tag);
        return putVarint(buf, p, x);
    }

    /** Writes an unsigned varint; returns the position after it. */
    private static int putVarint(byte[] buf, int p, long value) {
        while ((value & ~0x7FL) != 0) {
            buf[p++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        buf[p++] = (byte) value;
        return p;
    }

    /** Writes an unsigned 32-bit varint; returns the position after it. */
    private static int putVarint(byte[] buf, int p, int value) {
        while ((value & ~0x7F) != 0) {
            buf[p++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        buf[p++] = (byte) value;
        return p;
    }

    /** An array that pieces are encoded into, and the stream it is emptied into when full (none: array mode). */
    private static final class Sink {
        final byte[] buf;
        final OutputStream out;
        /** Where each row of a block is being filled. */
        final int[] at;
        int pos;

        Sink(byte[] buf, OutputStream out, int rows) {
            if (buf.length == 0) {
                throw new IllegalArgumentException("an empty scratch array");
            }
            this.buf = buf;
            this.out = out;
            this.at = new int[Math.max(1, Math.min(ROW_BLOCK, rows))];
        }

        void flush() throws IOException {
            if (pos > 0) {
                if (out == null) {
                    throw new IllegalStateException("the request did not fit its computed size");
                }
                out.write(buf, 0, pos);
                pos = 0;
            }
        }

        void varint(int value) throws IOException {
            if (pos + 5 > buf.length) {
                flush();
                if (buf.length < 5) {
                    byte[] b = new byte[5];
                    out.write(b, 0, putVarint(b, 0, value));
                    return;
                }
            }
            pos = putVarint(buf, pos, value);
        }

        void raw(byte[] b) throws IOException {
            if (pos + b.length > buf.length) {
                flush();
                if (b.length > buf.length) {
                    out.write(b);
                    return;
                }
            }
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
        }
    }

    /** The {@code ColumnSchema} message for a column; JSON columns carry {@code json_type}, vectors {@code vector_type}. */
    static ColumnSchema columnSchema(TableSchema.Column c) {
        ColumnSchema.Builder b = ColumnSchema.newBuilder()
                .setColumnName(c.name())
                .setDatatype(WireTypes.of(c.dataType()))
                .setSemanticType(WireTypes.of(c.semanticType()));
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
            {
                int len = byteLength(v, r);
                return tag + CodedOutputStream.computeUInt32SizeNoTag(len) + len;
            }
            case Decimal128: {
                int body = decimalBodySize(((ArrayColumn) v).getDecimalHigh(r), ((ArrayColumn) v).getDecimalLow(r));
                return tag + CodedOutputStream.computeUInt32SizeNoTag(body) + body;
            }
            default: // Int64, timestamps, times
                return tag + CodedOutputStream.computeInt64SizeNoTag(v.getLong(r));
        }
    }

    /**
     * Maps a column type to the generated enum (for tests and the generated-builder baseline).
     *
     * @param t the type
     * @return the enum constant
     */
    public static ColumnDataType wireType(DataType t) {
        return WireTypes.of(t);
    }
}
