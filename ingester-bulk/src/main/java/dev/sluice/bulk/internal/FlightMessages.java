package dev.sluice.bulk.internal;

import com.google.gson.stream.JsonReader;
import com.google.flatbuffers.FlatBufferBuilder;
import com.google.protobuf.CodedOutputStream;
import dev.sluice.internal.bulk.spi.BulkAnswer;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flatbuf.Endianness;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.FBSerializables;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Builds {@code FlightData} wire bytes for DoPut by hand (schema message with a PATH descriptor, then one
 * record batch per message with {@code {"request_id":N}}), and reads the server's {@code PutResult} answers.
 */
public final class FlightMessages {
    private static final int DESCRIPTOR_PATH = 1;

    private FlightMessages() {
    }

    /** Reads the server's {@code PutResult}s. */
    private static final MethodDescriptor.Marshaller<Flight.PutResult> PUT_RESULT =
            ProtoUtils.marshaller(Flight.PutResult.getDefaultInstance());

    /**
     * DoPut with {@code FlightData} going out as {@link BulkMessage}s (drained by the client's own marshaller), and
     * the server's {@code PutResult}s read into {@link BulkAnswer}s.
     */
    public static final MethodDescriptor<BulkMessage, BulkAnswer> DO_PUT =
            MethodDescriptor.<BulkMessage, BulkAnswer>newBuilder()
                    .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
                    .setFullMethodName(FlightServiceGrpc.getDoPutMethod().getFullMethodName())
                    .setRequestMarshaller(BulkMessage.MARSHALLER)
                    .setResponseMarshaller(new MethodDescriptor.Marshaller<>() {
                        @Override
                        public InputStream stream(BulkAnswer value) {
                            throw new UnsupportedOperationException("the client never sends PutResult");
                        }

                        @Override
                        public BulkAnswer parse(InputStream stream) {
                            return answer(stream);
                        }
                    })
                    .build();

    /**
     * Encodes the first message: the table's path descriptor and the Arrow schema.
     *
     * @param table the table name
     * @param fields the Arrow schema's fields
     * @return FlightData bytes
     */
    public static byte[] schemaMessage(String table, List<Field> fields) {
        byte[] header = bytes(schemaHeader(fields));
        int pathSize = CodedOutputStream.computeStringSize(3, table);
        int descriptorSize = CodedOutputStream.computeEnumSize(1, DESCRIPTOR_PATH) + pathSize;
        int size = 1 + CodedOutputStream.computeUInt32SizeNoTag(descriptorSize) + descriptorSize
                + CodedOutputStream.computeByteArraySize(2, header);
        byte[] out = new byte[size];
        CodedOutputStream cos = CodedOutputStream.newInstance(out);
        try {
            cos.writeTag(1, 2);
            cos.writeUInt32NoTag(descriptorSize);
            cos.writeEnum(1, DESCRIPTOR_PATH);
            cos.writeString(3, table);
            cos.writeByteArray(2, header);
            cos.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /**
     * The IPC message of a schema of these fields, byte for byte what Arrow's
     * {@code MessageSerializer.serializeMetadata(new Schema(fields), IpcOption.DEFAULT)} gives (a test holds them
     * equal), built without Arrow's {@code Schema} class: its first use initialises Jackson's object mapper, which
     * costs a fresh JVM about 0.3 s before its first bulk writer can open.
     */
    static ByteBuffer schemaHeader(List<Field> fields) {
        FlatBufferBuilder b = new FlatBufferBuilder();
        int[] offsets = new int[fields.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = fields.get(i).getField(b);
        }
        int fieldsOffset = org.apache.arrow.flatbuf.Schema.createFieldsVector(b, offsets);
        int metadataOffset = FBSerializables.writeKeyValues(b, Map.of());
        org.apache.arrow.flatbuf.Schema.startSchema(b);
        org.apache.arrow.flatbuf.Schema.addEndianness(b, ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
                ? Endianness.Little : Endianness.Big);
        org.apache.arrow.flatbuf.Schema.addFields(b, fieldsOffset);
        org.apache.arrow.flatbuf.Schema.addCustomMetadata(b, metadataOffset);
        int schema = org.apache.arrow.flatbuf.Schema.endSchema(b);
        return MessageSerializer.serializeMessage(b, MessageHeader.Schema, schema, 0, IpcOption.DEFAULT);
    }

    /**
     * Lays out one record batch with its request id as a message sent straight from Arrow memory: the protobuf
     * prefix on the heap, then each buffer at its IPC offset; buffers of at least {@link #HAND_OFF_MIN_BYTES} are
     * handed to the transport where it takes them, the rest copied around them.
     *
     * @param batch the unloaded (possibly compressed) batch; owned by the message from now on
     * @param requestId the id the server echoes back
     * @param handOff takes large buffers without a copy where the transport can ({@link DirectHandOff#NONE}: copy)
     * @return the message; its memory (the batch) is closed once it is released and the transport lets go
     */
    public static BulkMessage batchMessage(ArrowRecordBatch batch, long requestId, DirectHandOff handOff) {
        int bodySize = bodySize(batch);
        byte[] prefix = prefix(batch, requestId, bodySize);
        List<ArrowBuf> buffers = batch.getBuffers();
        List<ArrowBuffer> layout = batch.getBuffersLayout();
        int n = 0;
        for (ArrowBuffer at : layout) {
            if (at.getSize() > 0) {
                n++;
            }
        }
        ByteBuffer[] parts = new ByteBuffer[n];
        long[] offsets = new long[n];
        for (int i = 0, p = 0; i < buffers.size(); i++) {
            ArrowBuffer at = layout.get(i);
            if (at.getSize() > 0) {
                parts[p] = buffers.get(i).nioBuffer(0, (int) at.getSize());
                offsets[p++] = at.getOffset();
            }
        }
        return new BulkMessage(prefix, parts, offsets, bodySize, HAND_OFF_MIN_BYTES, handOff, batch);
    }

    /** Buffers at least this large are handed off; smaller ones, and the gaps between, are copied. */
    static final int HAND_OFF_MIN_BYTES = 64 << 10;

    /** The IPC body length of a batch, checked to fit one message. */
    private static int bodySize(ArrowRecordBatch batch) {
        long body = batch.computeBodyLength();
        if (body > Integer.MAX_VALUE - 1024) {
            throw new IllegalArgumentException("a record batch of " + body + " bytes is too large for one message");
        }
        return (int) body;
    }

    /** The FlightData fields before a batch's body: IPC header, {@code {"request_id":N}}, the body's tag and length. */
    private static byte[] prefix(ArrowRecordBatch batch, long requestId, int bodySize) {
        byte[] header = bytes(MessageSerializer.serializeMetadata(batch, IpcOption.DEFAULT));
        byte[] metadata = ("{\"request_id\":" + requestId + "}").getBytes(StandardCharsets.UTF_8);
        int prefixSize = CodedOutputStream.computeByteArraySize(2, header) + CodedOutputStream.computeByteArraySize(3, metadata)
                + CodedOutputStream.computeTagSize(1000) + CodedOutputStream.computeUInt32SizeNoTag(bodySize);
        byte[] prefix = new byte[prefixSize];
        CodedOutputStream cos = CodedOutputStream.newInstance(prefix);
        try {
            cos.writeByteArray(2, header);
            cos.writeByteArray(3, metadata);
            cos.writeTag(1000, 2);
            cos.writeUInt32NoTag(bodySize);
            cos.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return prefix;
    }

    /**
     * Copies one record batch with its request id into one buffer of {@code allocator}, as a message the transport
     * takes whole; the batch is left as it was (its owner still closes it).
     *
     * @param batch the unloaded (possibly compressed) batch
     * @param requestId the id the server echoes back
     * @param allocator where the copy's memory comes from (the writer's, so it counts against its cap)
     * @param handOff takes the buffer without a copy where the transport can
     * @return the message; its memory is closed once it is released and the transport lets go
     * @throws org.apache.arrow.memory.OutOfMemoryException when the allocator has no room for it
     */
    public static BulkMessage packedMessage(ArrowRecordBatch batch, long requestId, BufferAllocator allocator,
                                            DirectHandOff handOff) {
        return packedMessage(batch, requestId, allocator::buffer, ArrowBuf::close, handOff);
    }

    /**
     * Copies one record batch with its request id into one buffer, as {@link #packedMessage(ArrowRecordBatch, long,
     * BufferAllocator, DirectHandOff)} does, with memory from {@code memoryOf} given back to {@code giveBack}.
     *
     * @param batch the unloaded (possibly compressed) batch
     * @param requestId the id the server echoes back
     * @param memoryOf a buffer of at least the given size
     * @param giveBack takes the buffer back once the message no longer needs it (on any thread)
     * @param handOff takes the buffer without a copy where the transport can
     * @return the message
     */
    static BulkMessage packedMessage(ArrowRecordBatch batch, long requestId,
                                     LongFunction<ArrowBuf> memoryOf,
                                     Consumer<ArrowBuf> giveBack, DirectHandOff handOff) {
        int body = bodySize(batch);
        byte[] prefix = prefix(batch, requestId, body);
        int size = prefix.length + body;
        ArrowBuf memory = memoryOf.apply(size);
        try {
            long address = memory.memoryAddress();
            memory.setBytes(0, prefix);
            copyBody(batch.getBuffers(), batch.getBuffersLayout(), address + prefix.length, body);
            return new BulkMessage(new byte[0], new ByteBuffer[] {memory.nioBuffer(0, size)}, new long[] {0}, size, 1,
                    handOff, () -> giveBack.accept(memory));
        } catch (RuntimeException e) {
            giveBack.accept(memory);
            throw e;
        }
    }

    /** {@code FlightData} field tags, length-delimited: {@code data_header} (2), {@code app_metadata} (3). */
    private static final byte HEADER_TAG = (2 << 3) | 2;
    private static final byte METADATA_TAG = (3 << 3) | 2;
    /** {@code FlightData.data_body} (1000), length-delimited: its tag, a varint of two bytes. */
    private static final int BODY_TAG = (1000 << 3) | 2;
    private static final byte[] REQUEST_ID_OPEN = "{\"request_id\":".getBytes(StandardCharsets.US_ASCII);
    /** {@code MetadataVersion.V5} and {@code MessageHeader.RecordBatch} as the IPC format numbers them. */
    private static final short METADATA_V5 = 4;
    private static final byte RECORD_BATCH = 3;
    /** The IPC header's bytes besides its buffer and node entries, and where the buffer entries start (see {@link #putHeader}). */
    private static final int HEADER_FIXED = 88;
    private static final int BUFFERS_AT = 80;

    /**
     * Writes one uncompressed record batch of these vectors, with its request id, into one buffer as a message the
     * transport takes whole: the same bytes as {@link #packedMessage(ArrowRecordBatch, long, LongFunction, Consumer,
     * DirectHandOff)} gives for the batch Arrow's unloader takes from the vectors (a test holds them equal), with
     * the IPC header written in place and each buffer copied straight from its vector.
     *
     * @param vectors one vector per column, each holding {@code rows} values (fixed or variable width, no children)
     * @param rows the batch's rows
     * @param requestId the id the server echoes back
     * @param maxBody the body size from which the caller sends the batch otherwise
     * @param memoryOf a buffer of at least the given size
     * @param giveBack takes the buffer back once the message no longer needs it (on any thread)
     * @param handOff takes the buffer without a copy where the transport can
     * @return the message, or null when the batch is empty, its body is at least {@code maxBody} bytes, or a vector
     *     is of another kind (the caller then sends it through an {@link ArrowRecordBatch})
     */
    static BulkMessage packedMessage(List<FieldVector> vectors, int rows, long requestId, long maxBody,
                                     LongFunction<ArrowBuf> memoryOf, Consumer<ArrowBuf> giveBack,
                                     DirectHandOff handOff) {
        if (rows <= 0 || requestId < 0 || !MemoryUtil.LITTLE_ENDIAN) {
            return null;
        }
        int nodes = vectors.size();
        int buffers = 0;
        long body = 0;
        for (int i = 0; i < nodes; i++) {
            FieldVector v = vectors.get(i);
            int count = bufferCount(v);
            if (count == 0 || v.getValueCount() != rows) {
                return null;
            }
            for (int j = 0; j < count; j++) {
                body = align8(body + bufferSize(v, j, rows));
            }
            buffers += count;
        }
        if (body >= maxBody) {
            return null;
        }
        int header = HEADER_FIXED + 16 * (buffers + nodes);
        int idDigits = digits(requestId);
        int metadata = REQUEST_ID_OPEN.length + idDigits + 1;
        int prefix = 1 + varintSize(header) + header + 1 + varintSize(metadata) + metadata + 2
                + varintSize((int) body);
        long size = prefix + body;
        ArrowBuf memory = memoryOf.apply(size);
        try {
            long at = memory.memoryAddress();
            MemoryUtil.putByte(at++, HEADER_TAG);
            long headerAt = putVarint(at, header);
            putHeader(headerAt, rows, body, buffers, nodes);
            at = headerAt + header;
            MemoryUtil.putByte(at++, METADATA_TAG);
            at = putVarint(at, metadata);
            MemoryUtil.copyToMemory(REQUEST_ID_OPEN, 0, at, REQUEST_ID_OPEN.length);
            at += REQUEST_ID_OPEN.length + idDigits;
            for (long id = requestId, d = at - 1; d >= at - idDigits; d--, id /= 10) {
                MemoryUtil.putByte(d, (byte) ('0' + id % 10));
            }
            MemoryUtil.putByte(at++, (byte) '}');
            at = putVarint(putVarint(at, BODY_TAG), (int) body);
            long buffersAt = headerAt + BUFFERS_AT;
            long nodesAt = buffersAt + 16L * buffers + 8;
            long written = 0;
            for (int i = 0; i < nodes; i++) {
                FieldVector v = vectors.get(i);
                MemoryUtil.putLong(nodesAt, rows);
                MemoryUtil.putLong(nodesAt + 8, v.getNullCount());
                nodesAt += 16;
                for (int j = 0, count = bufferCount(v); j < count; j++) {
                    long length = bufferSize(v, j, rows);
                    ArrowBuf from = buffer(v, j);
                    if (length > from.capacity() || written + length > body) {
                        throw new IllegalStateException("buffer " + j + " of column '" + v.getName() + "' holds "
                                + from.capacity() + " bytes, short of the " + length + " its " + rows + " rows take");
                    }
                    MemoryUtil.putLong(buffersAt, written);
                    MemoryUtil.putLong(buffersAt + 8, length);
                    buffersAt += 16;
                    MemoryUtil.copyMemory(from.memoryAddress(), at + written, length);
                    long next = align8(written + length);
                    if (next > written + length) {
                        MemoryUtil.setMemory(at + written + length, next - written - length, (byte) 0);
                    }
                    written = next;
                }
            }
            return new BulkMessage(new byte[0], new ByteBuffer[] {memory.nioBuffer(0, (int) size)}, new long[] {0},
                    size, 1, handOff, () -> giveBack.accept(memory));
        } catch (RuntimeException e) {
            giveBack.accept(memory);
            throw e;
        }
    }

    /**
     * Writes the IPC {@code Message} FlatBuffer of an uncompressed record batch of {@code rows} rows and a body of
     * {@code body} bytes at {@code at}, laid out as Arrow's {@code MessageSerializer} lays it out (FlatBuffers
     * builds from the end: the node list last in memory, the buffer list before it, then the {@code RecordBatch}
     * table and its vtable, the {@code Message} table and its vtable, and the root offset first), leaving the
     * buffer and node entries to the caller.
     *
     * <pre>
     *  0 root offset (20)             4 padding                   8 Message vtable: 12, 22, 14, 21, 16, 4
     * 20 Message: vtable at -12       24 bodyLength               32 padding, 34 version (V5)
     * 36 header offset (16)           40 padding, 41 header_type (RecordBatch)
     * 42 RecordBatch vtable: 10, 24, 12, 8, 4
     * 52 RecordBatch: vtable at -10   56 buffers offset (20)      60 nodes offset (16 buffers + 24)
     * 64 length                       72 padding
     * 76 buffers: count, then {offset, length} each from 80
     * 80 + 16 buffers: padding, then nodes: count, then {length, null_count} each from 88 + 16 buffers
     * </pre>
     */
    private static void putHeader(long at, long rows, long body, int buffers, int nodes) {
        MemoryUtil.putInt(at, 20);
        MemoryUtil.putInt(at + 4, 0);
        MemoryUtil.putShort(at + 8, (short) 12);
        MemoryUtil.putShort(at + 10, (short) 22);
        MemoryUtil.putShort(at + 12, (short) 14);
        MemoryUtil.putShort(at + 14, (short) 21);
        MemoryUtil.putShort(at + 16, (short) 16);
        MemoryUtil.putShort(at + 18, (short) 4);
        MemoryUtil.putInt(at + 20, 12);
        MemoryUtil.putLong(at + 24, body);
        MemoryUtil.putShort(at + 32, (short) 0);
        MemoryUtil.putShort(at + 34, METADATA_V5);
        MemoryUtil.putInt(at + 36, 16);
        MemoryUtil.putByte(at + 40, (byte) 0);
        MemoryUtil.putByte(at + 41, RECORD_BATCH);
        MemoryUtil.putShort(at + 42, (short) 10);
        MemoryUtil.putShort(at + 44, (short) 24);
        MemoryUtil.putShort(at + 46, (short) 12);
        MemoryUtil.putShort(at + 48, (short) 8);
        MemoryUtil.putShort(at + 50, (short) 4);
        MemoryUtil.putInt(at + 52, 10);
        MemoryUtil.putInt(at + 56, 20);
        MemoryUtil.putInt(at + 60, 16 * buffers + 24);
        MemoryUtil.putLong(at + 64, rows);
        MemoryUtil.putInt(at + 72, 0);
        MemoryUtil.putInt(at + 76, buffers);
        long nodesCount = at + BUFFERS_AT + 16L * buffers;
        MemoryUtil.putInt(nodesCount, 0);
        MemoryUtil.putInt(nodesCount + 4, nodes);
    }

    /**
     * The most bytes a message of the first {@code rows} values of these vectors takes, however it is unloaded:
     * packed or through a record batch, its buffers compressed or not (a compressed buffer is its length prefix
     * and at most its own bytes, which Arrow sends as they are when compression does not shrink them).
     *
     * @param vectors one vector per column, each holding at least {@code rows} values
     * @param rows the rows to send, at least one
     * @param compressed whether the buffers are compressed
     * @return the bound in bytes
     */
    static long sizeBound(List<FieldVector> vectors, int rows, boolean compressed) {
        long body = 0;
        int buffers = 0;
        for (FieldVector v : vectors) {
            int count = bufferCount(v);
            if (count == 0) { // another kind of vector: all of its memory
                for (ArrowBuf b : v.getFieldBuffers()) {
                    body = align8(body + b.capacity() + COMPRESSED_LENGTH_BYTES);
                    buffers++;
                }
                continue;
            }
            for (int j = 0; j < count; j++) {
                body = align8(body + bufferSize(v, j, rows) + (compressed ? COMPRESSED_LENGTH_BYTES : 0));
            }
            buffers += count;
        }
        // The IPC header (a fixed part, then 16 bytes per node and per buffer), the request id and the fields'
        // tags and lengths.
        return body + PREFIX_BOUND_BYTES + 16L * (buffers + vectors.size());
    }

    /** The length each compressed buffer starts with. */
    private static final int COMPRESSED_LENGTH_BYTES = 8;
    /** More than a batch message's prefix takes besides its nodes and buffers (the packed one takes about 150). */
    private static final int PREFIX_BOUND_BYTES = 512;

    /** The buffers a vector lays out in a record batch: validity and values, with offsets between for text; 0 for others. */
    private static int bufferCount(FieldVector v) {
        return v instanceof BaseVariableWidthVector ? 3 : v instanceof BaseFixedWidthVector ? 2 : 0;
    }

    /** Buffer {@code j} of a vector, in {@link #bufferCount} order. */
    private static ArrowBuf buffer(FieldVector v, int j) {
        return j == 0 ? v.getValidityBuffer() : j == 1 && v instanceof BaseVariableWidthVector ? v.getOffsetBuffer()
                : v.getDataBuffer();
    }

    /** The bytes of buffer {@code j} of a vector of {@code rows} (at least one) values, as Arrow's unloader counts them. */
    private static long bufferSize(FieldVector v, int j, int rows) {
        if (j == 0) {
            return (rows + 7) / 8;
        }
        if (v instanceof BaseVariableWidthVector) {
            return j == 1 ? (rows + 1L) * BaseVariableWidthVector.OFFSET_WIDTH
                    : v.getOffsetBuffer().getInt((long) rows * BaseVariableWidthVector.OFFSET_WIDTH);
        }
        return v instanceof BitVector ? (rows + 7) / 8 : (long) rows * ((BaseFixedWidthVector) v).getTypeWidth();
    }

    private static long align8(long n) {
        return (n + 7) & ~7L;
    }

    private static int digits(long n) {
        int d = 1;
        while (n >= 10) {
            n /= 10;
            d++;
        }
        return d;
    }

    private static int varintSize(int n) {
        return n < (1 << 7) ? 1 : n < (1 << 14) ? 2 : n < (1 << 21) ? 3 : n < (1 << 28) ? 4 : 5;
    }

    /** Writes a non-negative int as a protobuf varint at {@code at}; returns where the next byte goes. */
    private static long putVarint(long at, int n) {
        while (n >= 0x80) {
            MemoryUtil.putByte(at++, (byte) (n & 0x7F | 0x80));
            n >>>= 7;
        }
        MemoryUtil.putByte(at++, (byte) n);
        return at;
    }

    /**
     * Copies a batch's buffers to their IPC offsets in {@code body} bytes at {@code to}, zeros between and after
     * them. Plain copies between addresses, checked against the layout once per buffer: this runs once per batch
     * and loops over its buffers, so the JIT compiles it on its own (on-stack), and Arrow's per-call bounds checks
     * and error formatting would multiply that compilation's size and time.
     */
    private static void copyBody(List<ArrowBuf> buffers, List<ArrowBuffer> layout, long to, long body) {
        long written = 0;
        for (int i = 0, n = buffers.size(); i < n; i++) {
            ArrowBuffer at = layout.get(i);
            long offset = at.getOffset();
            long length = at.getSize();
            ArrowBuf from = buffers.get(i);
            if (offset < written || length < 0 || offset + length > body || length > from.capacity()) {
                throw outOfLayout(i, offset, length, from.capacity(), written, body);
            }
            if (offset > written) {
                MemoryUtil.setMemory(to + written, offset - written, (byte) 0);
            }
            if (length > 0) {
                MemoryUtil.copyMemory(from.memoryAddress(), to + offset, length);
            }
            written = offset + length;
        }
        if (written < body) {
            MemoryUtil.setMemory(to + written, body - written, (byte) 0);
        }
    }

    private static IllegalStateException outOfLayout(int i, long offset, long length, long capacity, long written,
                                                     long body) {
        return new IllegalStateException("buffer " + i + " of a record batch (" + length + " bytes of " + capacity
                + " at " + offset + ") lies outside its body of " + body + " bytes or before the " + written
                + " bytes already laid out");
    }

    /**
     * Copies a message's bytes to the heap (for a writer whose allocator has no room for another copy of the batch,
     * and for tests).
     *
     * @param message the message
     * @return the bytes
     */
    public static byte[] toBytes(BulkMessage message) {
        byte[] bytes = new byte[message.size()];
        message.copyTo(ByteBuffer.wrap(bytes));
        return bytes;
    }

    private static byte[] bytes(ByteBuffer bb) {
        byte[] b = new byte[bb.remaining()];
        bb.duplicate().get(b);
        return b;
    }

    /**
     * Reads a {@code PutResult}'s JSON metadata, {@code {"request_id":N,"affected_rows":M}} (the server's
     * {@code DoPutResponse} of src/common/grpc/src/flight/do_put.rs in GreptimeTeam/greptimedb).
     *
     * @param result the answer
     * @return the parsed answer; a missing id reads as 0, as on the server
     * @throws IllegalArgumentException when the metadata is not such a JSON object
     */
    public static BulkAnswer answer(Flight.PutResult result) {
        BulkAnswer compact = compactAnswer(result.getAppMetadata());
        return compact != null ? compact : parsedAnswer(result);
    }

    /** The longest answer metadata the compact reader takes; longer ones go to the JSON parser. */
    private static final int MAX_COMPACT = 128;
    /** {@code PutResult.app_metadata}: field 1, length-delimited. */
    private static final int APP_METADATA_TAG = (1 << 3) | 2;

    /**
     * Reads a {@code PutResult} as gRPC hands it over. The server's answer, a message holding only its JSON
     * metadata, is read from its bytes where they lie, with no protobuf message made; anything else is parsed
     * as a {@code PutResult} and read by {@link #answer(Flight.PutResult)}.
     *
     * @param stream the message's bytes
     * @return the answer
     */
    static BulkAnswer answer(InputStream stream) {
        byte[] bytes;
        try {
            int known = stream.available();
            if (known <= 0 || known > MAX_COMPACT + 2) {
                return answer(PUT_RESULT.parse(stream));
            }
            bytes = stream.readNBytes(known);
            int extra = stream.read();
            if (extra >= 0) { // a stream that told less than its whole length
                byte[] rest = stream.readAllBytes();
                byte[] all = Arrays.copyOf(bytes, bytes.length + 1 + rest.length);
                all[bytes.length] = (byte) extra;
                System.arraycopy(rest, 0, all, bytes.length + 1, rest.length);
                bytes = all;
            }
        } catch (IOException e) {
            throw Status.INTERNAL.withDescription("could not read a DoPut answer").withCause(e)
                    .asRuntimeException();
        }
        // One length-delimited field 1 whose length (below 128: one byte) spans the rest of the message.
        if (bytes.length >= 2 && bytes[0] == APP_METADATA_TAG && bytes[1] >= 0 && bytes[1] == bytes.length - 2) {
            BulkAnswer compact = compactAnswer(bytes, 2, bytes.length - 2);
            if (compact != null) {
                return compact;
            }
        }
        return answer(PUT_RESULT.parse(new ByteArrayInputStream(bytes)));
    }

    private static final byte[] REQUEST_ID = "\"request_id\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AFFECTED_ROWS = "\"affected_rows\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ELAPSED_SECS = "\"elapsed_secs\":".getBytes(StandardCharsets.US_ASCII);

    /**
     * Reads the answer as the server writes it, with no JSON parser (whose reader and buffers would cost more than
     * the few bytes it reads): an object of the members {@code request_id} and {@code affected_rows}, each a
     * non-negative integer of at most 18 digits without leading zeros, and {@code elapsed_secs}, any JSON number
     * (skipped), in any order, with no whitespace: {@code DoPutResponse} as {@code serde_json} writes it.
     *
     * @return the answer, or null when the metadata is anything else (the JSON parser then reads it)
     */
    static BulkAnswer compactAnswer(com.google.protobuf.ByteString m) {
        int size = m.size();
        return size > MAX_COMPACT ? null : compactAnswer(m.toByteArray(), 0, size);
    }

    /**
     * Reads the answer JSON of {@code n} bytes at {@code off} as
     * {@link #compactAnswer(com.google.protobuf.ByteString)} does.
     *
     * @return the answer, or null when the JSON parser must read it
     */
    private static BulkAnswer compactAnswer(byte[] m, int off, int n) {
        if (n < 2 || n > MAX_COMPACT || m[off] != '{' || m[off + n - 1] != '}') {
            return null;
        }
        long id = 0;
        long rows = 0;
        int at = 1;
        if (n == 2) {
            return new BulkAnswer(0, 0);
        }
        while (true) {
            boolean isId;
            if (startsWith(m, off, n, at, REQUEST_ID)) {
                isId = true;
                at += REQUEST_ID.length;
            } else if (startsWith(m, off, n, at, AFFECTED_ROWS)) {
                isId = false;
                at += AFFECTED_ROWS.length;
            } else if (startsWith(m, off, n, at, ELAPSED_SECS)) {
                at = afterNumber(m, off, at + ELAPSED_SECS.length, n - 1);
                if (at < 0) {
                    return null;
                }
                if (at == n - 1) {
                    return new BulkAnswer(id, rows);
                }
                if (m[off + at] != ',') {
                    return null;
                }
                at++;
                continue;
            } else {
                return null;
            }
            int start = at;
            long v = 0;
            while (at < n - 1 && at - start < 18) {
                int d = m[off + at] - '0';
                if (d < 0 || d > 9) {
                    break;
                }
                v = v * 10 + d;
                at++;
            }
            if (at == start || (m[off + start] == '0' && at - start > 1)) {
                return null; // no digits, or a leading zero: the parser decides
            }
            if (isId) {
                id = v;
            } else {
                rows = v;
            }
            byte next = m[off + at];
            if (next == '}' && at == n - 1) {
                return new BulkAnswer(id, rows);
            }
            if (next != ',') {
                return null;
            }
            at++;
        }
    }

    /**
     * Returns where the JSON number starting at {@code at} ends (before {@code end}), or -1 when no JSON number
     * starts there: {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}.
     */
    private static int afterNumber(byte[] m, int off, int at, int end) {
        if (at < end && m[off + at] == '-') {
            at++;
        }
        int digits = digits(m, off, at, end);
        if (digits == 0 || (digits > 1 && m[off + at] == '0')) {
            return -1;
        }
        at += digits;
        if (at < end && m[off + at] == '.') {
            digits = digits(m, off, at + 1, end);
            if (digits == 0) {
                return -1;
            }
            at += 1 + digits;
        }
        if (at < end && (m[off + at] == 'e' || m[off + at] == 'E')) {
            at++;
            if (at < end && (m[off + at] == '+' || m[off + at] == '-')) {
                at++;
            }
            digits = digits(m, off, at, end);
            if (digits == 0) {
                return -1;
            }
            at += digits;
        }
        return at;
    }

    /** Counts the decimal digits from {@code at}, before {@code end}. */
    private static int digits(byte[] m, int off, int at, int end) {
        int i = at;
        while (i < end && m[off + i] >= '0' && m[off + i] <= '9') {
            i++;
        }
        return i - at;
    }

    private static boolean startsWith(byte[] m, int off, int n, int at, byte[] prefix) {
        if (at + prefix.length > n) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (m[off + at + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** Reads the answer's metadata with the JSON parser: any JSON object, extra members skipped. */
    private static BulkAnswer parsedAnswer(Flight.PutResult result) {
        long id = 0;
        long rows = 0;
        try (JsonReader json = new JsonReader(new InputStreamReader(result.getAppMetadata().newInput(),
                StandardCharsets.UTF_8))) {
            json.beginObject();
            while (json.hasNext()) {
                switch (json.nextName()) {
                    case "request_id" -> id = json.nextLong();
                    case "affected_rows" -> rows = json.nextLong();
                    default -> json.skipValue();
                }
            }
            json.endObject();
        } catch (IOException | IllegalStateException | NumberFormatException e) {
            throw new IllegalArgumentException("unreadable DoPut answer metadata: "
                    + result.getAppMetadata().toStringUtf8(), e);
        }
        return new BulkAnswer(id, rows);
    }
}
