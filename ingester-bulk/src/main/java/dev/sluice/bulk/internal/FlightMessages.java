package dev.sluice.bulk.internal;

import com.google.gson.stream.JsonReader;
import com.google.flatbuffers.FlatBufferBuilder;
import com.google.protobuf.CodedOutputStream;
import dev.sluice.internal.bulk.spi.BulkAnswer;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
     * DoPut with {@code FlightData} going out as {@link BulkMessage}s (pre-encoded bytes, or batches drained from
     * Arrow memory), and the server's {@code PutResult}s read into {@link BulkAnswer}s.
     */
    public static final MethodDescriptor<BulkMessage, BulkAnswer> DO_PUT =
            MethodDescriptor.<BulkMessage, BulkAnswer>newBuilder()
                    .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
                    .setFullMethodName(FlightServiceGrpc.getDoPutMethod().getFullMethodName())
                    .setRequestMarshaller(new MethodDescriptor.Marshaller<>() {
                        @Override
                        public InputStream stream(BulkMessage value) {
                            return value.stream();
                        }

                        @Override
                        public BulkMessage parse(InputStream stream) {
                            throw new UnsupportedOperationException("the client never parses FlightData");
                        }
                    })
                    .setResponseMarshaller(new MethodDescriptor.Marshaller<>() {
                        @Override
                        public InputStream stream(BulkAnswer value) {
                            throw new UnsupportedOperationException("the client never sends PutResult");
                        }

                        @Override
                        public BulkAnswer parse(InputStream stream) {
                            return answer(PUT_RESULT.parse(stream));
                        }
                    })
                    .build();

    /** A message already encoded on the heap: the schema, or a batch copied out of Arrow memory. */
    static final class HeapMessage implements BulkMessage {
        private final byte[] bytes;

        HeapMessage(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public int size() {
            return bytes.length;
        }

        @Override
        public InputStream stream() {
            return new BytesStream(bytes);
        }

        @Override
        public void release() {
            // heap memory: the garbage collector frees it
        }
    }

    /** A byte array gRPC can size and copy in one go. */
    static final class BytesStream extends ByteArrayInputStream implements KnownLength, Drainable {
        BytesStream(byte[] bytes) {
            super(bytes);
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            int n = count - pos;
            target.write(buf, pos, n);
            pos = count;
            return n;
        }
    }

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
     * A message in Arrow memory on its way out: written into gRPC's output each time it is sent (a message kept for a
     * resend is sent again from the same memory), its large buffers handed to the transport without a copy where the
     * transport takes them ({@link DirectHandOff}).
     *
     * <p>Owns its memory, which is freed once the owner has {@linkplain #release() released} it and the transport
     * has let go of every buffer handed to it, whichever comes last; then {@code freed} runs.
     */
    public abstract static sealed class ArrowMessage implements BulkMessage permits BatchMessage, PackedMessage {
        private final DirectHandOff handOff;
        private final Runnable freed;
        /** One for the owner until released, one per buffer the transport holds; the memory is freed at zero. */
        private final AtomicInteger holders = new AtomicInteger(1);
        private final AtomicBoolean released = new AtomicBoolean();
        private final Runnable unlent = this::drop;

        ArrowMessage(DirectHandOff handOff, Runnable freed) {
            this.handOff = handOff;
            this.freed = freed;
        }

        /**
         * Writes the FlightData bytes, handing buffers to the transport where it takes them.
         *
         * @param out the destination
         * @throws IOException from the destination
         */
        public abstract void writeTo(OutputStream out) throws IOException;

        /** Frees the memory (once, when neither the owner nor the transport holds it any more). */
        abstract void free();

        final DirectHandOff handOff() {
            return handOff;
        }

        /** Hands one buffer to the transport, holding the memory until the transport lets go of it. */
        final boolean lend(OutputStream out, ArrowBuf buf, long length) {
            if (handOff == DirectHandOff.NONE) {
                return false;
            }
            int h;
            do {
                h = holders.get();
                if (h == 0) {
                    throw new IllegalStateException("a bulk batch was sent after its memory was freed");
                }
            } while (!holders.compareAndSet(h, h + 1));
            boolean taken = false;
            try {
                taken = handOff.handOff(out, buf.nioBuffer(0, (int) length), unlent);
            } finally {
                if (!taken) {
                    drop();
                }
            }
            return taken;
        }

        /**
         * The owner lets go (once): after its last send, its answer, or when it is dropped. The memory is freed
         * now, or when the transport lets go of the last buffer handed to it.
         */
        @Override
        public final void release() {
            if (released.compareAndSet(false, true)) {
                drop();
            }
        }

        private void drop() {
            if (holders.decrementAndGet() == 0) {
                try {
                    free();
                } finally {
                    freed.run();
                }
            }
        }

        /**
         * Returns what gRPC drains this message from; may be called once per send.
         *
         * @return a stream of the FlightData bytes
         */
        @Override
        public final InputStream stream() {
            return new MessageStream(this);
        }
    }

    /**
     * A record batch straight from the vectors it was built in: its large buffers are handed to the transport, the
     * rest is copied around them. Owns the batch.
     */
    public static final class BatchMessage extends ArrowMessage {
        /** Buffers at least this large are handed off; smaller ones, and the gaps between, are copied. */
        static final int HAND_OFF_MIN_BYTES = 64 << 10;
        private final ArrowRecordBatch batch;
        private final byte[] prefix;
        private final int size;

        BatchMessage(ArrowRecordBatch batch, long requestId, DirectHandOff handOff, Runnable freed) {
            super(handOff, freed);
            this.batch = batch;
            byte[] header = bytes(MessageSerializer.serializeMetadata(batch, IpcOption.DEFAULT));
            byte[] metadata = ("{\"request_id\":" + requestId + "}").getBytes(StandardCharsets.UTF_8);
            long body = batch.computeBodyLength();
            if (body > Integer.MAX_VALUE - 1024) {
                throw new IllegalArgumentException("a record batch of " + body + " bytes is too large for one message");
            }
            int bodySize = (int) body;
            int prefixSize = CodedOutputStream.computeByteArraySize(2, header) + CodedOutputStream.computeByteArraySize(3, metadata)
                    + CodedOutputStream.computeTagSize(1000) + CodedOutputStream.computeUInt32SizeNoTag(bodySize);
            this.prefix = new byte[prefixSize];
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
            this.size = prefixSize + bodySize;
        }

        /** @return the FlightData size in bytes */
        @Override
        public int size() {
            return size;
        }

        /**
         * Writes the FlightData bytes: protobuf prefix, then each buffer at its IPC offset (zero padding between).
         * Buffers of at least {@link #HAND_OFF_MIN_BYTES} are handed to the transport when it takes them.
         *
         * @param out the destination
         * @throws IOException from the destination
         */
        @Override
        public void writeTo(OutputStream out) throws IOException {
            writeTo(out, true, null);
        }

        /**
         * Writes the FlightData bytes to {@code out}; with {@code copy} set, the Arrow buffers' bytes go straight
         * into it at the current position instead (one copy, no chunk), and {@code out} must write into it too.
         */
        private void writeTo(OutputStream out, boolean lend, Copy copy) throws IOException {
            out.write(prefix);
            List<ArrowBuf> buffers = batch.getBuffers();
            List<ArrowBuffer> layout = batch.getBuffersLayout();
            long written = 0;
            byte[] zeros = new byte[8];
            byte[] chunk = null;
            for (int i = 0; i < buffers.size(); i++) {
                ArrowBuffer at = layout.get(i);
                while (written < at.getOffset()) {
                    int n = (int) Math.min(zeros.length, at.getOffset() - written);
                    out.write(zeros, 0, n);
                    written += n;
                }
                ArrowBuf buf = buffers.get(i);
                long length = at.getSize();
                if (lend && length >= HAND_OFF_MIN_BYTES && lend(out, buf, length)) {
                    written += length;
                    continue;
                }
                if (copy != null) {
                    copy.copyFrom(buf, length);
                    written += length;
                    continue;
                }
                if (chunk == null) {
                    chunk = new byte[Math.min(64 * 1024, Math.max(8, size))];
                }
                copyInChunks(out, buf, length, chunk);
                written += length;
            }
            long end = size - prefix.length;
            while (written < end) {
                int n = (int) Math.min(zeros.length, end - written);
                out.write(zeros, 0, n);
                written += n;
            }
        }

        /**
         * Copies the FlightData bytes to the heap (for a writer whose allocator has no room for another copy of the
         * batch, and for tests).
         *
         * @return the bytes
         */
        public byte[] toBytes() {
            HeapCopy copy = new HeapCopy(new byte[size]);
            copy(copy);
            return copy.bytes;
        }

        /**
         * Copies the FlightData bytes into one buffer of {@code allocator}, as a message of their own that the
         * transport takes whole; this message is left as it was (its owner still releases it).
         *
         * @param allocator where the copy's memory comes from (the writer's, so it counts against its cap)
         * @param freed runs once the copy's memory is freed (on any thread)
         * @return the copy
         * @throws org.apache.arrow.memory.OutOfMemoryException when the allocator has no room for it
         */
        public PackedMessage pack(BufferAllocator allocator, Runnable freed) {
            ArrowBuf memory = allocator.buffer(size);
            try {
                copy(new MemoryCopy(memory.memoryAddress()));
            } catch (RuntimeException e) {
                memory.close();
                throw e;
            }
            return new PackedMessage(memory, size, handOff(), freed);
        }

        private void copy(Copy copy) {
            try {
                writeTo(copy, false, copy);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (copy.at != size) {
                throw new IllegalStateException("a batch message of " + size + " bytes wrote " + copy.at);
            }
        }

        @Override
        void free() {
            batch.close();
        }
    }

    /**
     * A whole message in one buffer of Arrow memory: a small batch copied out of the vectors it was built in (which
     * then take the next rows), handed to the transport as one buffer.
     */
    public static final class PackedMessage extends ArrowMessage {
        private final ArrowBuf memory;
        private final int size;

        PackedMessage(ArrowBuf memory, int size, DirectHandOff handOff, Runnable freed) {
            super(handOff, freed);
            this.memory = memory;
            this.size = size;
        }

        @Override
        public int size() {
            return size;
        }

        /**
         * Writes the FlightData bytes: the whole buffer handed to the transport when it takes it, else copied.
         *
         * @param out the destination
         * @throws IOException from the destination
         */
        @Override
        public void writeTo(OutputStream out) throws IOException {
            if (size > 0 && lend(out, memory, size)) {
                return;
            }
            copyInChunks(out, memory, size, new byte[Math.min(64 * 1024, Math.max(8, size))]);
        }

        @Override
        void free() {
            memory.close();
        }
    }

    /** Writes {@code length} bytes of {@code buf} in chunks: {@code ArrowBuf.getBytes} to a stream copies it whole. */
    private static void copyInChunks(OutputStream out, ArrowBuf buf, long length, byte[] chunk) throws IOException {
        for (long off = 0; off < length; off += chunk.length) {
            int n = (int) Math.min(chunk.length, length - off);
            buf.getBytes(off, chunk, 0, n);
            out.write(chunk, 0, n);
        }
    }

    /** Where a batch message is copied to: the prefix and padding as a stream, Arrow buffers directly. */
    private abstract static class Copy extends OutputStream {
        int at;

        abstract void copyFrom(ArrowBuf buf, long length);
    }

    /** A copy into a heap array. */
    private static final class HeapCopy extends Copy {
        final byte[] bytes;

        HeapCopy(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public void write(int b) {
            bytes[at++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            System.arraycopy(b, off, bytes, at, len);
            at += len;
        }

        @Override
        void copyFrom(ArrowBuf buf, long length) {
            buf.getBytes(0, bytes, at, (int) length);
            at += (int) length;
        }
    }

    /** A copy into Arrow memory at an address (the buffer sized by the caller). */
    private static final class MemoryCopy extends Copy {
        private final long address;

        MemoryCopy(long address) {
            this.address = address;
        }

        @Override
        public void write(int b) {
            MemoryUtil.putByte(address + at++, (byte) b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            MemoryUtil.copyToMemory(b, off, address + at, len);
            at += len;
        }

        @Override
        void copyFrom(ArrowBuf buf, long length) {
            MemoryUtil.copyMemory(buf.memoryAddress(), address + at, length);
            at += (int) length;
        }
    }

    /**
     * gRPC drains a message straight from Arrow memory (inside {@code sendMessage}). Not {@code KnownLength}:
     * gRPC then drains it into a chain of buffers, which is what takes handed-off memory.
     */
    static final class MessageStream extends InputStream implements Drainable {
        private final ArrowMessage message;
        private boolean drained;

        MessageStream(ArrowMessage message) {
            this.message = message;
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            if (drained) {
                return 0;
            }
            drained = true;
            message.writeTo(target);
            return message.size();
        }

        @Override
        public int available() {
            return drained ? 0 : message.size();
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException("drained by gRPC, never read");
        }
    }

    /**
     * Prepares one record batch with its request id for sending straight from Arrow memory.
     *
     * @param batch the unloaded (possibly compressed) batch; owned by the message from now on
     * @param requestId the id the server echoes back
     * @param handOff takes large buffers without a copy where the transport can ({@link DirectHandOff#NONE}: copy)
     * @param freed runs once the batch's memory is freed (on any thread)
     * @return the message
     */
    public static BatchMessage batchMessage(ArrowRecordBatch batch, long requestId, DirectHandOff handOff,
                                            Runnable freed) {
        return new BatchMessage(batch, requestId, handOff, freed);
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
        int n = m.size();
        if (n < 2 || n > 128 || m.byteAt(0) != '{' || m.byteAt(n - 1) != '}') {
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
            if (startsWith(m, at, REQUEST_ID)) {
                isId = true;
                at += REQUEST_ID.length;
            } else if (startsWith(m, at, AFFECTED_ROWS)) {
                isId = false;
                at += AFFECTED_ROWS.length;
            } else if (startsWith(m, at, ELAPSED_SECS)) {
                at = afterNumber(m, at + ELAPSED_SECS.length, n - 1);
                if (at < 0) {
                    return null;
                }
                if (at == n - 1) {
                    return new BulkAnswer(id, rows);
                }
                if (m.byteAt(at) != ',') {
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
                int d = m.byteAt(at) - '0';
                if (d < 0 || d > 9) {
                    break;
                }
                v = v * 10 + d;
                at++;
            }
            if (at == start || (m.byteAt(start) == '0' && at - start > 1)) {
                return null; // no digits, or a leading zero: the parser decides
            }
            if (isId) {
                id = v;
            } else {
                rows = v;
            }
            byte next = m.byteAt(at);
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
    private static int afterNumber(com.google.protobuf.ByteString m, int at, int end) {
        if (at < end && m.byteAt(at) == '-') {
            at++;
        }
        int digits = digits(m, at, end);
        if (digits == 0 || (digits > 1 && m.byteAt(at) == '0')) {
            return -1;
        }
        at += digits;
        if (at < end && m.byteAt(at) == '.') {
            digits = digits(m, at + 1, end);
            if (digits == 0) {
                return -1;
            }
            at += 1 + digits;
        }
        if (at < end && (m.byteAt(at) == 'e' || m.byteAt(at) == 'E')) {
            at++;
            if (at < end && (m.byteAt(at) == '+' || m.byteAt(at) == '-')) {
                at++;
            }
            digits = digits(m, at, end);
            if (digits == 0) {
                return -1;
            }
            at += digits;
        }
        return at;
    }

    /** Counts the decimal digits from {@code at}, before {@code end}. */
    private static int digits(com.google.protobuf.ByteString m, int at, int end) {
        int i = at;
        while (i < end && m.byteAt(i) >= '0' && m.byteAt(i) <= '9') {
            i++;
        }
        return i - at;
    }

    private static boolean startsWith(com.google.protobuf.ByteString m, int at, byte[] prefix) {
        if (at + prefix.length > m.size()) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (m.byteAt(at + i) != prefix[i]) {
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
