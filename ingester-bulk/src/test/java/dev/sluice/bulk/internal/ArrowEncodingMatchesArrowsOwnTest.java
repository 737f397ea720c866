package dev.sluice.bulk.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.SharesJvm;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.junit.jupiter.api.Test;

/**
 * The bulk writer encodes its schema message and record batches without Arrow's {@code Schema} and
 * {@code VectorSchemaRoot}; what it sends is byte for byte what Arrow's own encoders give for the same columns.
 */
@SharesJvm
class ArrowEncodingMatchesArrowsOwnTest {
    /** A tag, the time index, and a field of every type the bulk path writes. */
    private static TableSchema everyBulkType() {
        TableSchema.Builder b = TableSchema.newBuilder("every_type").addTag("host", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond);
        for (DataType t : DataType.values()) {
            if (t != DataType.Json && t != DataType.Vector) {
                b.addColumn("f_" + t.name().toLowerCase(), SemanticType.Field, t);
            }
        }
        return b.build();
    }

    @Test
    void theSchemaMessageIsArrowsOwnEncodingOfTheSchema() {
        TableSchema schema = everyBulkType();
        byte[] ours = bytes(FlightMessages.schemaHeader(ArrowTypes.fields(schema)));
        byte[] arrows = bytes(MessageSerializer.serializeMetadata(ArrowTypes.schema(schema), IpcOption.DEFAULT));
        assertArrayEquals(arrows, ours);
    }

    @Test
    void aBatchUnloadsAsArrowsVectorUnloaderUnloadsItUncompressedAndCompressed() throws IOException {
        TableSchema schema = everyBulkType();
        List<CompressionCodec> codecs = new ArrayList<>();
        codecs.add(null);
        codecs.add(CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD));
        codecs.add(CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.LZ4_FRAME));
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            for (CompressionCodec codec : codecs) {
                ArrowTableBufferRoot root = new ArrowTableBufferRoot(schema, allocator, 16, Long.MAX_VALUE, NoGuard.INSTANCE);
                try {
                    fill(root, schema, 300);
                    List<FieldVector> vectors = new ArrayList<>();
                    for (int c = 0; c < schema.columnCount(); c++) {
                        vectors.add(root.vector(c));
                    }
                    byte[] ours;
                    try (ArrowRecordBatch batch = root.unload(codec)) {
                        ours = serialize(batch);
                    }
                    VectorSchemaRoot arrowRoot = new VectorSchemaRoot(ArrowTypes.fields(schema), vectors, root.rowCount());
                    byte[] arrows;
                    try (ArrowRecordBatch batch = new VectorUnloader(arrowRoot, true, codec, true).getRecordBatch()) {
                        arrows = serialize(batch);
                    }
                    assertTrue(ours.length > 300, "a batch of 300 rows: " + ours.length + " bytes");
                    assertArrayEquals(arrows, ours, "codec " + (codec == null ? "none" : codec.getCodecType()));
                } finally {
                    root.close();
                }
            }
        }
    }

    /** Rows with a value of each column's type, and a null in every column of every seventh row (but the time index). */
    private static void fill(ArrowTableBufferRoot root, TableSchema schema, int rows) {
        RowAppender a = root.appender();
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < schema.columnCount(); c++) {
                DataType t = schema.column(c).dataType();
                if (r % 7 == 3 && c != schema.timestampIndex()) {
                    a.setNull(c);
                    continue;
                }
                switch (t) {
                    case Bool -> a.setBoolean(c, r % 3 == 0);
                    case Float32, Float64 -> a.setDouble(c, r * 1.25);
                    case String -> a.setString(c, "value " + r + " é");
                    case Binary -> a.setBytes(c, ("bytes " + r).getBytes(StandardCharsets.UTF_8));
                    case Decimal128 -> a.setDecimal(c, BigDecimal.valueOf(r * 1001L, 3));
                    default -> a.setLong(c, r % 100);
                }
            }
            a.endRow();
        }
        root.complete();
    }

    private static byte[] serialize(ArrowRecordBatch batch) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MessageSerializer.serialize(new WriteChannel(Channels.newChannel(out)), batch, IpcOption.DEFAULT);
        return out.toByteArray();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private enum NoGuard implements ArrowTableBufferRoot.Guard {
        INSTANCE;

        @Override
        public void enter() {
        }

        @Override
        public void exit(int rows) {
        }
    }
}
