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
