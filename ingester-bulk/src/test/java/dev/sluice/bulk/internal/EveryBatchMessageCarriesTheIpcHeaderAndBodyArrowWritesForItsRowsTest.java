package dev.sluice.bulk.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sluice.SharesJvm;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BatchGuard;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.write.Compression;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each batch message a bulk writer's codec sends, batch after batch on the same writer (sizes 1, 2, 999, 1000, 1001
 * and one over 4 MiB; columns null in every row, in the first or last row, at random, or never; empty text), holds
 * the IPC header Arrow writes for those vectors (version, length, every node's length and null count, every
 * buffer's offset and length, 8-byte aligned, the body's length and compression), the same body bytes, and its
 * request id; read back by Arrow, every cell equals the vectors'.
 */
@SharesJvm
class EveryBatchMessageCarriesTheIpcHeaderAndBodyArrowWritesForItsRowsTest {
    static final BatchGuard NO_GUARD = new BatchGuard() {
        @Override
        public void enter() {
        }

        @Override
        public void exit(int rows) {
        }
    };

    static final List<DataType> TYPES = new ArrayList<>();

    static {
        for (DataType t : DataType.values()) {
            if (t != DataType.Json && t != DataType.Vector) {
                TYPES.add(t);
            }
        }
    }

    static TableSchema schema() {
        TableSchema.Builder b = TableSchema.newBuilder("messages").addTag("host", DataType.String);
        for (int copy = 0; copy < 5; copy++) {
            for (DataType t : TYPES) {
                if (t == DataType.Decimal128) {
                    b.addColumn("f" + copy + "_" + t, SemanticType.Field, t, new DecimalType(20, 3));
                } else {
                    b.addField("f" + copy + "_" + t, t);
                }
            }
        }
        return b.addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static Object value(DataType t, int r, Random rnd, int textLength) {
        return switch (t) {
            case Bool -> rnd.nextBoolean();
            case Int8, Int16, Int32, UInt8, UInt16 -> rnd.nextInt(100);
            case Int64, UInt32 -> (long) rnd.nextInt(1 << 30);
            case UInt64 -> java.math.BigInteger.valueOf(r);
            case Float32 -> rnd.nextFloat();
            case Float64 -> rnd.nextDouble();
            case Binary -> r % 4 == 0 ? new byte[0] : new byte[] {(byte) r, 1, 2};
            case String -> r % 5 == 0 ? "" : textLength > 0 ? "t" + r + "x".repeat(textLength) : "v" + (r % 9);
            case Date -> r;
            case TimestampSecond, TimestampMillisecond, TimestampMicrosecond, TimestampNanosecond,
                TimeSecond, TimeMillisecond, TimeMicrosecond, TimeNanosecond -> (long) r;
            case Decimal128 -> BigDecimal.valueOf(r * 1001L, 3);
            default -> throw new IllegalArgumentException(t.toString());
        };
    }

    static void fill(ArrowTableBufferRoot root, TableSchema schema, int batch, int rows, Random rnd, int textLength) {
        int n = schema.columnCount();
        for (int r = 0; r < rows; r++) {
            Object[] row = new Object[n];
            row[0] = r == rows - 1 ? null : "host";
            for (int c = 1; c < n - 1; c++) {
                boolean isNull = switch ((batch + c) % 5) {
                    case 0 -> true;
                    case 1 -> r == 0;
                    case 2 -> r == rows - 1;
                    case 3 -> rnd.nextInt(3) == 0;
                    default -> false;
                };
                row[c] = isNull ? null : value(schema.column(c).dataType(), r, rnd, textLength);
            }
            row[n - 1] = 1_700_000_000_000L + r;
            root.addRow(row);
        }
    }

    static CompressionCodec arrowCodec(Compression c) {
        return switch (c) {
            case Zstd -> CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD);
            case Lz4 -> CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.LZ4_FRAME);
            default -> null;
        };
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"None", "Zstd", "Lz4"})
    void everyMessageHoldsArrowsHeaderAndBody(Compression compression) throws IOException {
        TableSchema schema = schema();
        int[] sizes = {1, 2, 999, 1000, 1001, 1, 1000, 3, 6000, 2, 999, 1};
        Random rnd = new Random(compression.ordinal());
        try (BufferAllocator clientRoot = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableCodec codec = new ArrowTableCodec(schema, BulkWrite.Config.newBuilder().build(), compression,
                    clientRoot, DirectHandOff.NONE);
            try {
                for (int b = 0; b < sizes.length; b++) {
                    int rows = sizes[b];
                    ArrowTableBufferRoot root = (ArrowTableBufferRoot) codec.rows(16, NO_GUARD);
                    fill(root, schema, b, rows, rnd, rows == 6000 ? 400 : 0);
                    root.complete();
                    List<FieldVector> vectors = new ArrayList<>();
                    for (int c = 0; c < schema.columnCount(); c++) {
                        vectors.add(root.vector(c));
                    }
                    VectorSchemaRoot arrowRoot = new VectorSchemaRoot(ArrowTypes.fields(schema), vectors, rows);
                    byte[] arrowsHeader;
                    byte[] arrowsBody;
                    try (ArrowRecordBatch batch = new VectorUnloader(arrowRoot, true, arrowCodec(compression), true)
                            .getRecordBatch()) {
                        arrowsHeader = bytes(MessageSerializer.serializeMetadata(batch, IpcOption.DEFAULT));
                        ByteArrayOutputStream out = new ByteArrayOutputStream();
                        MessageSerializer.serialize(new WriteChannel(Channels.newChannel(out)), batch,
                                IpcOption.DEFAULT);
                        byte[] all = out.toByteArray();
                        arrowsBody = Arrays.copyOfRange(all, all.length - (int) batch.computeBodyLength(),
                                all.length);
                    }
                    List<List<Object>> cells = cells(vectors, rows);
                    long requestId = 1000L + b;
                    BulkMessage m = codec.unload(requestId);
                    byte[] wire;
                    try {
                        wire = FlightMessages.toBytes(m);
                    } finally {
                        m.release();
                    }
                    Flight.FlightData data = Flight.FlightData.parseFrom(wire);
                    assertEquals("{\"request_id\":" + requestId + "}", data.getAppMetadata().toStringUtf8());
                    byte[] header = data.getDataHeader().toByteArray();
                    byte[] body = data.getDataBody().toByteArray();
                    String where = compression + " batch " + b + " of " + rows + " rows";
                    assertSameHeader(arrowsHeader, header, compression != Compression.Lz4, where);
                    if (compression != Compression.Lz4) { // the writer's LZ4 frames are its own encoder's
                        assertArrayEquals(arrowsBody, body, where + ": body");
                    }
                    assertEquals(cells, readBack(clientRoot, schema, header, body), where + ": cells read back");
                }
            } finally {
                codec.close();
            }
            assertEquals(0, clientRoot.getAllocatedMemory(), "memory back once the codec is closed");
        }
    }

    static List<List<Object>> cells(List<FieldVector> vectors, int rows) {
        List<List<Object>> out = new ArrayList<>();
        for (FieldVector v : vectors) {
            List<Object> column = new ArrayList<>();
            for (int r = 0; r < rows; r++) {
                Object o = v.getObject(r);
                column.add(o instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : o == null ? null : o.toString());
            }
            column.add(v.getNullCount());
            out.add(column);
        }
        return out;
    }

    /** Reads a batch message's header and body with Arrow, and returns its cells as {@link #cells} gives them. */
    static List<List<Object>> readBack(BufferAllocator allocator, TableSchema schema, byte[] header, byte[] body)
            throws IOException {
        Message message = Message.getRootAsMessage(ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN));
        RecordBatch rb = (RecordBatch) message.header(new RecordBatch());
        try (BufferAllocator child = allocator.newChildAllocator("read-back", 0, Long.MAX_VALUE)) {
            ArrowBuf buf = child.buffer(Math.max(1, body.length));
            buf.setBytes(0, body); // the batch read from it takes this reference over
            List<FieldVector> vectors = new ArrayList<>();
            for (var f : ArrowTypes.fields(schema)) {
                vectors.add(f.createVector(child));
            }
            try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(rb, buf);
                 VectorSchemaRoot root = new VectorSchemaRoot(ArrowTypes.fields(schema), vectors, 0)) {
                new VectorLoader(root, CommonsCompressionFactory.INSTANCE).load(batch);
                return cells(vectors, (int) rb.length());
            }
        }
    }

    static void assertSameHeader(byte[] expectedBytes, byte[] actualBytes, boolean sizes, String where) {
        Message expected = Message.getRootAsMessage(ByteBuffer.wrap(expectedBytes).order(ByteOrder.LITTLE_ENDIAN));
        Message actual = Message.getRootAsMessage(ByteBuffer.wrap(actualBytes).order(ByteOrder.LITTLE_ENDIAN));
        assertEquals(expected.version(), actual.version(), where + ": version");
        assertEquals(MessageHeader.RecordBatch, actual.headerType(), where + ": header type");
        RecordBatch e = (RecordBatch) expected.header(new RecordBatch());
        RecordBatch a = (RecordBatch) actual.header(new RecordBatch());
        assertNotNull(a, where);
        assertEquals(e.length(), a.length(), where + ": length");
        assertEquals(e.nodesLength(), a.nodesLength(), where + ": nodes");
        for (int i = 0; i < e.nodesLength(); i++) {
            assertEquals(e.nodes(i).length(), a.nodes(i).length(), where + ": node " + i + " length");
            assertEquals(e.nodes(i).nullCount(), a.nodes(i).nullCount(), where + ": node " + i + " null count");
        }
        assertEquals(e.buffersLength(), a.buffersLength(), where + ": buffers");
        for (int i = 0; i < a.buffersLength(); i++) {
            assertEquals(0, a.buffers(i).offset() % 8, where + ": buffer " + i + " offset aligned");
            if (sizes) {
                assertEquals(e.buffers(i).offset(), a.buffers(i).offset(), where + ": buffer " + i + " offset");
                assertEquals(e.buffers(i).length(), a.buffers(i).length(), where + ": buffer " + i + " length");
            }
        }
        assertEquals(0, actual.bodyLength() % 8, where + ": body length aligned");
        if (sizes) {
            assertEquals(expected.bodyLength(), actual.bodyLength(), where + ": body length");
        }
        if (e.compression() == null) {
            assertNull(a.compression(), where + ": compression");
        } else {
            assertNotNull(a.compression(), where + ": compression");
            assertEquals(e.compression().codec(), a.compression().codec(), where + ": codec");
            assertEquals(e.compression().method(), a.compression().method(), where + ": method");
        }
        assertEquals(e.variadicBufferCountsLength(), a.variadicBufferCountsLength(), where + ": variadic counts");
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
