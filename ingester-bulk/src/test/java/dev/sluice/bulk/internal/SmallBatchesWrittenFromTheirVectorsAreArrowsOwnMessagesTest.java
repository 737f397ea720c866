package dev.sluice.bulk.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sluice.BatchingWriter;
import dev.sluice.SharesJvm;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.write.Compression;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.junit.jupiter.api.Test;

/**
 * A small uncompressed batch is written from its vectors straight into its message: for every type the bulk path
 * carries, with and without nulls and empty values, of any row count, batch after batch from the same vectors,
 * the message is byte for byte the one the batch gives through Arrow's {@code ArrowRecordBatch} and
 * {@code MessageSerializer}, and Arrow's own reader loads it back to the same values.
 */
@SharesJvm
class SmallBatchesWrittenFromTheirVectorsAreArrowsOwnMessagesTest {
    /** How the rows of a batch are filled. */
    private enum Values {
        /** A value in every cell. */
        ALL,
        /** A null in every column but the time index, every third row. */
        SOME_NULL,
        /** A null in every column but the time index. */
        ALL_NULL,
        /** Empty text and bytes, zeros elsewhere. */
        EMPTY
    }

    private static final int[] ROW_COUNTS = {1, 7, 1000, 8, 0, 3};

    /** A tag, the time index, and a field of every type the bulk path carries. */
    private static TableSchema everyBulkType() {
        TableSchema.Builder b = TableSchema.newBuilder("every_type").addTag("host", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond);
        for (DataType t : DataType.values()) {
            if (BatchingWriter.Path.Bulk.carries(t)) {
                if (t == DataType.Decimal128) {
                    b.addColumn("f_" + t.name(), SemanticType.Field, t, new DecimalType(20, 3));
                } else {
                    b.addColumn("f_" + t.name(), SemanticType.Field, t);
                }
            }
        }
        return b.build();
    }

    private static void fill(RowAppender a, TableSchema schema, int rows, Values values, int seed) {
        for (int r = 0; r < rows; r++) {
            int v = r + seed;
            for (int c = 0; c < schema.columnCount(); c++) {
                DataType t = schema.column(c).dataType();
                if (c != schema.timestampIndex()
                        && (values == Values.ALL_NULL || values == Values.SOME_NULL && v % 3 == 1)) {
                    a.setNull(c);
                    continue;
                }
                boolean empty = values == Values.EMPTY;
                switch (t) {
                    case Bool -> a.setBoolean(c, !empty && v % 3 == 0);
                    case Float32, Float64 -> a.setDouble(c, empty ? 0 : v * 1.25);
                    case String -> a.setString(c, empty ? "" : "value " + v + " é");
                    case Json -> a.setString(c, empty ? "{}" : "{\"v\":" + v + "}");
                    case Binary -> a.setBytes(c, empty ? new byte[0] : ("bytes " + v).getBytes(StandardCharsets.UTF_8));
                    case Decimal128 -> a.setDecimal(c, empty ? BigDecimal.ZERO : BigDecimal.valueOf(v * 1001L, 3));
                    default -> a.setLong(c, empty ? 0 : v % 100);
                }
            }
            a.endRow();
        }
    }

    /**
     * The message of the batch in these vectors through Arrow's record batch and serializer (the vectors are left
     * as they are).
     */
    private static byte[] throughArrowsRecordBatch(BufferAllocator allocator, ArrowTableBufferRoot root,
                                                   long requestId) {
        try (ArrowRecordBatch batch = root.unload(null)) {
            BulkMessage m = FlightMessages.packedMessage(batch, requestId, allocator, DirectHandOff.NONE);
            try {
                return FlightMessages.toBytes(m);
            } finally {
                m.release();
            }
        }
    }

    @Test
    void everyTypeAndRowCountIsWrittenAsArrowWritesItAndReadsBackToTheSameValues() throws Exception {
        TableSchema schema = everyBulkType();
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            for (Values values : Values.values()) {
                // One set of vectors for every batch: each batch refills the vectors the last one was read from.
                ArrowTableBufferRoot root = new ArrowTableBufferRoot(schema, allocator, 4, Long.MAX_VALUE,
                        ArrowTableBufferRoot.Guard.NONE);
                try {
                    int seed = 0;
                    for (int rows : ROW_COUNTS) {
                        long requestId = seed * 977L;
                        String label = values + ", " + rows + " rows, request " + requestId;
                        fill(root.appender(), schema, rows, values, seed);
                        byte[] expected = throughArrowsRecordBatch(allocator, root, requestId);
                        BulkMessage m = FlightMessages.packedMessage(root.completedVectors(), root.rowCount(),
                                requestId, Long.MAX_VALUE, allocator::buffer, ArrowBuf::close, DirectHandOff.NONE);
                        if (rows == 0) {
                            assertNull(m, "an empty batch goes through Arrow's record batch");
                        } else {
                            assertNotNull(m, label);
                            byte[] ours = FlightMessages.toBytes(m);
                            m.release();
                            assertArrayEquals(expected, ours, label);
                            assertReadsBackAs(allocator, schema, root, ours, requestId, label);
                        }
                        root.reset();
                        seed += rows + 1;
                    }
                } finally {
                    root.close();
                }
            }
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    /** Reads a message with Arrow's own reader into vectors of the schema; compares every value with the source's. */
    private static void assertReadsBackAs(BufferAllocator allocator, TableSchema schema, ArrowTableBufferRoot source,
                                          byte[] message, long requestId, String label) throws Exception {
        Flight.FlightData data = Flight.FlightData.parseFrom(message);
        assertEquals("{\"request_id\":" + requestId + "}", data.getAppMetadata().toStringUtf8(), label);
        Message header = Message.getRootAsMessage(data.getDataHeader().asReadOnlyByteBuffer());
        assertEquals(MessageHeader.RecordBatch, header.headerType(), label);
        assertEquals(data.getDataBody().size(), header.bodyLength(), label);
        RecordBatch batchHeader = (RecordBatch) header.header(new RecordBatch());
        byte[] bodyBytes = data.getDataBody().toByteArray();
        try (VectorSchemaRoot read = VectorSchemaRoot.create(ArrowTypes.schema(schema), allocator)) {
            ArrowBuf body = allocator.buffer(bodyBytes.length);
            body.setBytes(0, bodyBytes);
            // The reader takes the body: the batch holds it, and it is freed with the batch.
            try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(batchHeader, body)) {
                new VectorLoader(read).load(batch);
            }
            assertEquals(source.rowCount(), read.getRowCount(), label);
            for (int c = 0; c < schema.columnCount(); c++) {
                FieldVector ours = source.vector(c);
                FieldVector theirs = read.getVector(c);
                assertEquals(ours.getNullCount(), theirs.getNullCount(), label);
                for (int r = 0; r < source.rowCount(); r++) {
                    Object expected = ours.getObject(r);
                    Object actual = theirs.getObject(r);
                    if (expected instanceof byte[]) {
                        assertArrayEquals((byte[]) expected, (byte[]) actual, label);
                    } else {
                        assertEquals(expected, actual, label + ", column " + c + ", row " + r);
                    }
                }
            }
        }
    }

    @Test
    void aWriterSendsItsSmallUncompressedBatchesAsArrowsRecordBatchPathSendsThem() throws Exception {
        TableSchema schema = everyBulkType();
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableCodec codec = new ArrowTableCodec(schema, BulkWrite.Config.newBuilder().build(),
                    Compression.None, allocator, DirectHandOff.NONE);
            List<BulkMessage> held = new ArrayList<>();
            int seed = 0;
            long requestId = 1;
            for (Values values : Values.values()) {
                for (int rows : ROW_COUNTS) {
                    ArrowTableBufferRoot rowsOfCodec = (ArrowTableBufferRoot) codec.rows(16, ArrowTableBufferRoot.Guard.NONE);
                    fill(rowsOfCodec.appender(), schema, rows, values, seed);
                    byte[] expected = throughArrowsRecordBatch(allocator, rowsOfCodec, requestId);
                    BulkMessage m = codec.unload(requestId);
                    byte[] got = FlightMessages.toBytes(m);
                    assertArrayEquals(expected, got, values + ", " + rows + " rows");
                    held.add(m);
                    if (held.size() == 3) { // a few unanswered at once, then answered
                        held.forEach(BulkMessage::release);
                        held.clear();
                    }
                    seed += rows + 1;
                    requestId = requestId * 10 + 3;
                }
            }
            held.forEach(BulkMessage::release);
            codec.close();
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }
}
