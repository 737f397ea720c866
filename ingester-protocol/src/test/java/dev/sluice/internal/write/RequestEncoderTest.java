package dev.sluice.internal.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.data.VectorType;
import dev.sluice.write.WriteOp;
import com.google.protobuf.ByteString;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.Value;
import dev.sluice.internal.wire.RequestHeader;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RequestEncoderTest {
    static final int VECTOR_DIM = 3;
    static final byte[] HEADER = RequestHeader.newBuilder().setDbname("public").setTimezone("+08:00").build().toByteArray();

    static TableSchema schema() {
        TableSchema.Builder b = TableSchema.newBuilder("enc").addTag("host", DataType.String).addTag("id", DataType.Int32);
        for (DataType t : DataType.values()) {
            if (t == DataType.Decimal128) {
                b.addColumn("c_" + t, SemanticType.Field, t, new DecimalType(20, 3));
            } else if (t == DataType.Vector) {
                b.addColumn("c_" + t, SemanticType.Field, t, new VectorType(VECTOR_DIM));
            } else {
                b.addField("c_" + t, t);
            }
        }
        return b.addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static Object randomValue(DataType t, Random r) {
        if (r.nextInt(5) == 0) {
            return null;
        }
        switch (t) {
            case Bool: return r.nextBoolean();
            case Int8: return (byte) r.nextInt();
            case Int16: return (short) r.nextInt();
            case Int32: return r.nextInt();
            case Int64: return r.nextLong();
            case UInt8: return r.nextInt(256);
            case UInt16: return r.nextInt(65_536);
            case UInt32: return (long) r.nextInt() & 0xFFFF_FFFFL;
            case UInt64: return new BigInteger(64, r);
            case Float32: return r.nextFloat() * 1e6f - 5e5f;
            case Float64: return r.nextGaussian() * 1e12;
            case Binary: { byte[] b = new byte[r.nextInt(50)]; r.nextBytes(b); return b; }
            case String: return "s" + r.nextInt() + (r.nextBoolean() ? "é✓" : "");
            case Json: return "{\"a\":" + r.nextInt() + "}";
            case Date: return r.nextInt(100_000) - 50_000;
            case Decimal128: return BigDecimal.valueOf(r.nextLong() % 100_000_000_000_000L, 3);
            case Vector: return new float[] {r.nextFloat(), -r.nextFloat() * 1e20f, (float) r.nextGaussian()};
            default: return r.nextLong();
        }
    }

    static GreptimeRequest viaBuilders(Table t, WriteOp op) throws Exception {
        return ReferenceEncoder.build(RequestHeader.parseFrom(HEADER), op, List.of(t));
    }

    static byte[] encode(Table t, WriteOp op) throws Exception {
        return bytes(new RequestEncoder(HEADER, op, List.of(t)));
    }

    static List<Object[]> randomRows(long seed, int rows) {
        TableSchema s = schema();
        Random r = new Random(seed);
        List<Object[]> out = new java.util.ArrayList<>();
        for (int i = 0; i < rows; i++) {
            Object[] row = new Object[s.columnCount()];
            row[0] = "h" + r.nextInt(10);
            row[1] = r.nextInt();
            for (int c = 2; c < s.columnCount() - 1; c++) {
                row[c] = randomValue(s.column(c).dataType(), r);
            }
            row[s.columnCount() - 1] = r.nextLong();
            out.add(row);
        }
        return out;
    }

    static Table tableOf(List<Object[]> rows) {
        Table t = Table.from(schema());
        rows.forEach(t::addRow);
        return t;
    }

    static Table randomTable(long seed, int rows) {
        return tableOf(randomRows(seed, rows));
    }

    /**
     * Encodes a request into an array of its size, and checks that streaming it through scratch arrays of
     * several sizes (rows grouped per piece, rows and schemas larger than the array) writes the same bytes.
     */
    static byte[] bytes(RequestEncoder e) throws Exception {
        byte[] whole = new byte[e.size()];
        assertEquals(e.size(), e.encode(whole), "declared size equals bytes written");
        for (int scratch : new int[] {1, 7, 64, 1_000, e.size() / 3 + 1, e.size() + 100}) {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            e.writeTo(bos, new byte[scratch]);
            assertArrayEquals(whole, bos.toByteArray(), "streamed through a " + scratch + "-byte array");
        }
        return whole;
    }

    @Test
    void splitPartsAreByteIdenticalToRequestsOfTheirRowsAndStayUnderTheLimit() throws Exception {
        for (WriteOp op : WriteOp.values()) {
            List<Object[]> rows = randomRows(7, 400);
            RequestEncoder whole = new RequestEncoder(HEADER, op, List.of(tableOf(rows)));
            int limit = whole.size() / 7;
            List<RequestEncoder> parts = whole.split(limit);
            assertTrue(parts.size() >= 7, parts.size() + " parts");
            int from = 0;
            for (RequestEncoder part : parts) {
                assertTrue(part.size() <= limit, "part of " + part.size() + " bytes over " + limit);
                Table expected = tableOf(rows.subList(from, from + part.rowCount()));
                assertArrayEquals(viaBuilders(expected, op).toByteArray(), bytes(part), op + " rows from " + from);
                from += part.rowCount();
            }
            assertEquals(400, from, "every row in exactly one part, in order");
            assertEquals(List.of(whole), whole.split(whole.size()), "a request that fits is not split");
        }
    }

    @Test
    void aRowLargerThanTheLimitTravelsAlone() throws Exception {
        TableSchema s = TableSchema.newBuilder("big").addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(s).addRow("a", 1L).addRow("x".repeat(10_000), 2L).addRow("b", 3L);
        List<RequestEncoder> parts = new RequestEncoder(HEADER, WriteOp.Insert, List.of(t)).split(1_000);
        assertEquals(List.of(1, 1, 1), parts.stream().map(RequestEncoder::rowCount).toList());
        assertTrue(parts.get(1).size() > 10_000);
    }

    @Test
    void aVectorColumnTravelsAsLittleEndianFloat32sInBinaryValueWithItsDimensionInTheSchema() throws Exception {
        TableSchema s = TableSchema.newBuilder("emb")
                .addColumn("v", SemanticType.Field, DataType.Vector, new VectorType(2))
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(s).addRow(new float[] {1.5f, -2f}, 7L).addRow(null, 8L);
        // Built by hand with the generated classes: 1.5f is 0x3FC00000 and -2f is 0xC0000000, low byte first.
        dev.sluice.internal.wire.ColumnSchema v = dev.sluice.internal.wire.ColumnSchema.newBuilder()
                .setColumnName("v").setDatatype(dev.sluice.internal.wire.ColumnDataType.VECTOR)
                .setSemanticType(dev.sluice.internal.wire.SemanticType.FIELD)
                .setDatatypeExtension(dev.sluice.internal.wire.ColumnDataTypeExtension.newBuilder()
                        .setVectorType(dev.sluice.internal.wire.VectorTypeExtension.newBuilder().setDim(2))).build();
        dev.sluice.internal.wire.ColumnSchema ts = dev.sluice.internal.wire.ColumnSchema.newBuilder()
                .setColumnName("ts").setDatatype(dev.sluice.internal.wire.ColumnDataType.TIMESTAMP_MILLISECOND)
                .setSemanticType(dev.sluice.internal.wire.SemanticType.TIMESTAMP).build();
        byte[] le = {0, 0, (byte) 0xC0, 0x3F, 0, 0, 0, (byte) 0xC0};
        GreptimeRequest expected = GreptimeRequest.newBuilder().setHeader(RequestHeader.parseFrom(HEADER))
                .setRowInserts(dev.sluice.internal.wire.RowInsertRequests.newBuilder().addInserts(
                        dev.sluice.internal.wire.RowInsertRequest.newBuilder().setTableName("emb").setRows(
                                dev.sluice.internal.wire.Rows.newBuilder().addSchema(v).addSchema(ts)
                                        .addRows(dev.sluice.internal.wire.Row.newBuilder()
                                                .addValues(Value.newBuilder().setBinaryValue(ByteString.copyFrom(le)))
                                                .addValues(Value.newBuilder().setTimestampMillisecondValue(7)))
                                        .addRows(dev.sluice.internal.wire.Row.newBuilder()
                                                .addValues(Value.getDefaultInstance())
                                                .addValues(Value.newBuilder().setTimestampMillisecondValue(8))))))
                .build();
        assertArrayEquals(expected.toByteArray(), encode(t, WriteOp.Insert));
    }

    @Test
    void directEncodingIsByteIdenticalToGeneratedBuildersForEveryType() throws Exception {
        for (long seed = 0; seed < 20; seed++) {
            Table t = randomTable(seed, 50);
            assertArrayEquals(viaBuilders(t, WriteOp.Insert).toByteArray(), encode(t, WriteOp.Insert), "seed " + seed);
        }
    }

    @Test
    void columnsWithoutNullsAndTextAroundOneByteLengthsEncodeAsTheGeneratedBuildersDo() throws Exception {
        // Each column either has no null at all (the encoder skips the per-row null check for it) or has some;
        // text and binary lengths cross 127, where a length takes a second byte.
        TableSchema s = schema();
        for (long seed = 0; seed < 30; seed++) {
            Random r = new Random(seed);
            boolean[] nullable = new boolean[s.columnCount()];
            for (int c = 0; c < nullable.length; c++) {
                nullable[c] = r.nextInt(3) == 0;
            }
            Table t = Table.from(s);
            for (int row = 0; row < 70; row++) {
                Object[] values = new Object[s.columnCount()];
                for (int c = 0; c < values.length; c++) {
                    DataType type = s.column(c).dataType();
                    Object v = c == values.length - 1 ? Long.valueOf(r.nextLong()) : randomValue(type, r);
                    while (v == null && !nullable[c]) {
                        v = randomValue(type, r);
                    }
                    if (v != null && type == DataType.String) {
                        v = "x".repeat(110 + r.nextInt(30));
                    } else if (v != null && type == DataType.Binary) {
                        v = new byte[110 + r.nextInt(30)];
                    }
                    values[c] = v;
                }
                t.addRow(values);
            }
            for (WriteOp op : WriteOp.values()) {
                assertArrayEquals(viaBuilders(t, op).toByteArray(), encode(t, op), op + ", seed " + seed);
            }
        }
    }

    @Test
    void rowsAcrossTheEncodersRowBlocksWithTheOnlyNullInALaterBlockEncodeAsTheGeneratedBuildersDo() throws Exception {
        // Rows are encoded 256 at a time; a column whose only null is in a later block must still write that null.
        TableSchema s = TableSchema.newBuilder("blocks").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addField("n", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        for (int rows : new int[] {255, 256, 257, 512, 513, 1_000}) {
            for (int nullAt : new int[] {0, 255, 256, rows - 1}) {
                if (nullAt >= rows) {
                    continue;
                }
                Table t = Table.from(s);
                for (int r = 0; r < rows; r++) {
                    t.addRow(r == nullAt ? null : "h" + (r % 7), r == nullAt ? null : r * 0.5,
                            r == nullAt ? null : (long) r * 1_000_003, (long) r);
                }
                for (WriteOp op : WriteOp.values()) {
                    assertArrayEquals(viaBuilders(t, op).toByteArray(), encode(t, op),
                            op + ", " + rows + " rows, null at " + nullAt);
                }
            }
        }
    }

    @Test
    void deletesCarryOnlyTagsAndTheTimeIndex() throws Exception {
        Table t = randomTable(99, 10);
        byte[] bytes = encode(t, WriteOp.Delete);
        assertArrayEquals(viaBuilders(t, WriteOp.Delete).toByteArray(), bytes);
        GreptimeRequest parsed = GreptimeRequest.parseFrom(bytes);
        assertEquals(3, parsed.getRowDeletes().getDeletes(0).getRows().getSchemaCount());
    }

    @Test
    void bigRowsWithLongStringsRoundTripThroughTheParser() throws Exception {
        TableSchema s = TableSchema.newBuilder("big").addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(s);
        String longText = "x".repeat(300_000);
        t.addRow(longText, 1L).addRow("", 2L);
        GreptimeRequest parsed = GreptimeRequest.parseFrom(encode(t, WriteOp.Insert));
        assertEquals(longText, parsed.getRowInserts().getInserts(0).getRows().getRows(0).getValues(0).getStringValue());
    }

    @Test
    void oneSchemaInstanceReusedForInsertsAndDeletesEncodesEachOperationsOwnColumns() throws Exception {
        TableSchema s = schema();
        List<Table> tables = new java.util.ArrayList<>();
        for (long seed = 100; seed < 104; seed++) {
            Table t = Table.from(s);
            randomRows(seed, 30).forEach(t::addRow);
            tables.add(t);
        }
        // Interleaved, so every request after the first finds the schema's encoded columns already worked out.
        for (Table t : tables) {
            for (WriteOp op : List.of(WriteOp.Insert, WriteOp.Delete, WriteOp.Insert)) {
                assertArrayEquals(viaBuilders(t, op).toByteArray(), encode(t, op), op.toString());
            }
        }
    }

    @Test
    void manySchemasEncodedFromManyThreadsEachGetTheirOwnColumnSchemas() throws Exception {
        // More schemas than the encoder remembers, several of them sharing a name, from four threads at once.
        int schemas = 600;
        List<TableSchema> all = new java.util.ArrayList<>();
        for (int i = 0; i < schemas; i++) {
            TableSchema.Builder b = TableSchema.newBuilder("t" + (i % 7)).addTag("tag" + (i % 3), DataType.String);
            if (i % 2 == 0) {
                b.addField("f" + i, DataType.Float64);
            } else {
                b.addField("g" + i, DataType.Int32);
            }
            all.add(b.addTimestamp("ts", DataType.TimestampMillisecond).build());
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Integer>> checks = new java.util.ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int worker = w;
                checks.add(pool.submit(() -> {
                    int checked = 0;
                    for (int round = 0; round < 3; round++) {
                        for (int i = worker % 2; i < schemas; i += 2) { // two threads per schema
                            TableSchema s = all.get(i);
                            Table t = Table.from(s).addRow("v" + i, i % 2 == 0 ? (Object) (i * 0.5) : (Object) i, (long) i);
                            WriteOp op = (i + round) % 3 == 0 ? WriteOp.Delete : WriteOp.Insert;
                            assertArrayEquals(viaBuilders(t, op).toByteArray(), encode(t, op), s.tableName() + " " + i);
                            checked++;
                        }
                    }
                    return checked;
                }));
            }
            int total = 0;
            for (java.util.concurrent.Future<Integer> f : checks) {
                total += f.get(2, java.util.concurrent.TimeUnit.MINUTES);
            }
            assertEquals(4 * 3 * schemas / 2, total);
        } finally {
            pool.shutdownNow();
        }
    }
}
