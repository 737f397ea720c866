package dev.sluice.testkit;

import com.google.protobuf.ByteString;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.write.StatusCode;
import dev.sluice.data.TableSchema;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.sluice.testkit.internal.DbString;
import dev.sluice.testkit.internal.ServerError;
import dev.sluice.testkit.internal.ServerTypes;
import dev.sluice.testkit.internal.Storage;
import dev.sluice.testkit.internal.TimeBuckets;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Arrow Flight {@code DoPut} as GreptimeDB serves it: bulk inserts into existing tables, one answer per batch. */
final class BulkService {
    private static final Metadata.Key<String> DB = Metadata.Key.of("x-greptime-db-name", Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<String> AUTH = Metadata.Key.of("x-greptime-auth", Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    private final Storage storage;
    private final RequestProcessor auth;
    private final Faults faults;
    private final RequestLog log;
    private final boolean allowAutoCreate;
    /**
     * Holds each batch's body while it is decoded; released after every batch. Created when the first DoPut
     * message arrives: Arrow's memory classes log at INFO as they initialise, which a test that never writes in
     * bulk should not see.
     */
    private volatile BufferAllocator allocator;
    private final ScheduledExecutorService acks = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "testkit-bulk-acks");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger unanswered = new AtomicInteger();
    private final AtomicInteger maxUnanswered = new AtomicInteger();

    private final int maxMessageBytes;

    BulkService(Storage storage, RequestProcessor auth, Faults faults, RequestLog log, boolean allowAutoCreate,
                int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
        this.storage = storage;
        this.auth = auth;
        this.faults = faults;
        this.log = log;
        this.allowAutoCreate = allowAutoCreate;
    }

    int maxUnanswered() {
        return maxUnanswered.get();
    }

    void resetStats() {
        maxUnanswered.set(unanswered.get());
    }

    /** One FlightData message, its body read straight into Arrow memory (owned by whoever takes it). */
    record Incoming(Flight.FlightDescriptor descriptor, byte[] header, byte[] appMetadata, ArrowBuf body, int size) {
    }

    /**
     * The DoPut method with a parser that reads the body into an Arrow buffer in one pass, instead of the
     * generated one that keeps a heap copy of every batch.
     *
     * @return the service definition to register
     */
    io.grpc.ServerServiceDefinition definition() {
        io.grpc.MethodDescriptor<Incoming, Flight.PutResult> doPut = io.grpc.MethodDescriptor.<Incoming, Flight.PutResult>newBuilder()
                .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
                .setFullMethodName(FlightServiceGrpc.getDoPutMethod().getFullMethodName())
                .setRequestMarshaller(new io.grpc.MethodDescriptor.Marshaller<>() {
                    @Override
                    public java.io.InputStream stream(Incoming value) {
                        throw new UnsupportedOperationException("the testkit never sends FlightData");
                    }

                    @Override
                    public Incoming parse(java.io.InputStream in) {
                        try {
                            return read(in);
                        } catch (java.io.IOException e) {
                            throw Status.INVALID_ARGUMENT.withDescription("Malformed FlightData: " + e.getMessage())
                                    .asRuntimeException();
                        }
                    }
                })
                .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(Flight.PutResult.getDefaultInstance()))
                .build();
        return io.grpc.ServerServiceDefinition.builder(FlightServiceGrpc.SERVICE_NAME)
                .addMethod(doPut, io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
                        out -> new Stream(out, DatabaseService.metadataOrEmpty())))
                .build();
    }

    private Incoming read(java.io.InputStream in) throws java.io.IOException {
        int size = in.available(); // gRPC hands over the whole message: its length
        Flight.FlightDescriptor descriptor = null;
        byte[] header = new byte[0];
        byte[] app = new byte[0];
        ArrowBuf body = null;
        try {
            int tag;
            while ((tag = varint(in, true)) >= 0) {
                int field = tag >>> 3;
                int wire = tag & 7;
                if (wire == 0) {
                    varint(in, false);
                    continue;
                }
                if (wire != 2) {
                    in.skipNBytes(wire == 1 ? 8 : 4);
                    continue;
                }
                int len = varint(in, false);
                switch (field) {
                    case 1: descriptor = Flight.FlightDescriptor.parseFrom(in.readNBytes(len)); break;
                    case 2: header = in.readNBytes(len); break;
                    case 3: app = in.readNBytes(len); break;
                    case 1000:
                        if (body != null) {
                            body.close();
                        }
                        body = allocator().buffer(Math.max(1, len));
                        readBody(in, body, len);
                        break;
                    default: in.skipNBytes(len);
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            if (body != null) {
                body.close();
            }
            throw e;
        }
        return new Incoming(descriptor, header, app, body, size);
    }

    /**
     * Copies a body into Arrow memory: straight from gRPC's (direct) receive buffers when the stream exposes them,
     * else through a small heap chunk.
     */
    private static void readBody(java.io.InputStream in, ArrowBuf body, int len) throws java.io.IOException {
        int off = 0;
        if (in instanceof io.grpc.HasByteBuffer && ((io.grpc.HasByteBuffer) in).byteBufferSupported()) {
            while (off < len) {
                ByteBuffer next = ((io.grpc.HasByteBuffer) in).getByteBuffer();
                if (next == null || !next.hasRemaining()) {
                    break;
                }
                int n = Math.min(next.remaining(), len - off);
                next.limit(next.position() + n);
                body.setBytes(off, next);
                in.skipNBytes(n);
                off += n;
            }
        }
        byte[] chunk = null;
        while (off < len) {
            if (chunk == null) {
                chunk = new byte[Math.min(64 * 1024, len - off)];
            }
            int n = in.read(chunk, 0, Math.min(chunk.length, len - off));
            if (n < 0) {
                throw new java.io.EOFException("FlightData body cut short");
            }
            body.setBytes(off, chunk, 0, n);
            off += n;
        }
        body.writerIndex(len);
    }

    private static int varint(java.io.InputStream in, boolean eofAllowed) throws java.io.IOException {
        int result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.read();
            if (b < 0) {
                if (eofAllowed && shift == 0) {
                    return -1;
                }
                throw new java.io.EOFException("truncated varint");
            }
            if (shift < 32) {
                result |= (b & 0x7F) << shift;
            }
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new java.io.IOException("malformed varint");
    }

    private final class Stream implements StreamObserver<Incoming> {
        private final StreamObserver<Flight.PutResult> out;
        private final Metadata md;
        private final String user;
        private String db = "";
        private String table;
        private Schema schema;
        private boolean done;
        private int streamUnanswered;
        /** Batches held without an answer by {@link Faults#neverRespond(boolean)}: the stream then never ends. */
        private int held;
        /** Whether the server ended the stream with an error: batches waiting behind a hold are then dropped. */
        private boolean refused;
        /** Whether the client has sent its last batch. */
        private boolean halfClosed;
        /** Answers of stored batches not sent yet (delayed by {@link Faults#bulkAckDelay} or held before answering). */
        private int answersOwed;
        /** The error that ends the stream once every answer owed before it has gone out. */
        private StatusRuntimeException lastWord;
        /** Whether the stream's answers have ended (an error, the end, or the client gone): nothing more is sent. */
        private boolean outEnded;
        /**
         * Batches held by the hold gate before storing, oldest first; later batches of the stream wait behind them,
         * so the stream's batches are stored in order.
         */
        private final java.util.ArrayDeque<Runnable> backlog = new java.util.ArrayDeque<>();

        Stream(StreamObserver<Flight.PutResult> out, Metadata md) {
            this.out = out;
            this.md = md;
            String user0 = null;
            try {
                user0 = checkAuth(md);
                db = database(md);
            } catch (StatusRuntimeException e) {
                done = true;
                outEnded = true;
                out.onError(e);
            } catch (ServerError e) {
                done = true;
                outEnded = true;
                out.onError(e.toStatus());
            }
            this.user = user0;
            if (!done) {
                send(0, 0, 0);
            }
        }

        private synchronized void send(long id, long rows, double elapsed) {
            if (outEnded) {
                return;
            }
            String json = String.format(Locale.ROOT, "{\"request_id\":%d,\"affected_rows\":%d,\"elapsed_secs\":%.6f}", id, rows, elapsed);
            out.onNext(Flight.PutResult.newBuilder().setAppMetadata(ByteString.copyFromUtf8(json)).build());
        }

        /** Sends a stored batch's answer; the stream ends once the client is done and every batch is answered. */
        private synchronized void answer(long id, long rows, double elapsed) {
            send(id, rows, elapsed);
            if (streamUnanswered > 0) { // none left when the client went away meanwhile
                streamUnanswered--;
                unanswered.decrementAndGet();
            }
            if (answersOwed > 0) {
                answersOwed--;
            }
            if (lastWord != null && answersOwed == 0) {
                endWith(lastWord);
                return;
            }
            finishIfAnswered();
        }

        /**
         * Refuses the stream: later batches are not read, and the error goes out after the answers of every batch
         * stored before it. The server writes each answer, and then the error, into one first-in first-out channel
         * that the response stream drains in order, ending at the first error
         * ({@code src/servers/src/grpc/greptime_handler.rs} put_record_batches, {@code src/servers/src/grpc/flight.rs}
         * do_put), so a late answer is never overtaken by the error.
         */
        private synchronized void fail(StatusRuntimeException e) {
            if (!done) {
                done = true;
                refused = true;
                if (answersOwed == 0) {
                    endWith(e);
                } else {
                    lastWord = e;
                }
            }
        }

        private synchronized void endWith(StatusRuntimeException e) {
            lastWord = null;
            if (!outEnded) {
                outEnded = true;
                out.onError(e);
            }
        }

        /** Runs a step of this stream, turning its failure into the stream's error answer as the server does. */
        private void guarded(Step step) {
            try {
                step.run();
            } catch (ServerError e) {
                fail(e.toStatus());
            } catch (StatusRuntimeException e) {
                fail(e);
            } catch (Exception e) {
                // Decode failures reach the client as InvalidArguments, as on the server.
                fail(new ServerError(StatusCode.InvalidArguments, "Failed to decode Flight data: " + e).toStatus());
            }
        }

        @Override
        public void onNext(Incoming data) {
            synchronized (this) {
                if (done) {
                    if (data.body() != null) {
                        data.body().close();
                    }
                    return;
                }
            }
            guarded(() -> {
                if (data.size() > maxMessageBytes) {
                    if (data.body() != null) {
                        data.body().close();
                    }
                    throw DatabaseService.tooLarge(data.size(), maxMessageBytes);
                }
                if (schema == null) {
                    if (data.body() != null) {
                        data.body().close();
                    }
                    first(data);
                    return;
                }
                batch(data);
            });
        }

        private void first(Incoming data) {
            if (data.descriptor() == null || data.descriptor().getType() != Flight.FlightDescriptor.DescriptorType.PATH
                    || data.descriptor().getPathCount() != 1) {
                throw Status.INVALID_ARGUMENT.withDescription("The first FlightData must carry a PATH descriptor with"
                        + " exactly one element, the table name").asRuntimeException();
            }
            Message m = Message.getRootAsMessage(ByteBuffer.wrap(data.header()));
            if (m.headerType() != MessageHeader.Schema) {
                throw Status.INVALID_ARGUMENT.withDescription("The first FlightData must carry the Arrow schema")
                        .asRuntimeException();
            }
            table = data.descriptor().getPath(0);
            schema = MessageSerializer.deserializeSchema(m);
        }

        private void batch(Incoming data) throws Exception {
            ArrowBuf body = data.body() != null ? data.body() : allocator().buffer(1);
            Message m;
            long id;
            Faults.HoldPoint point;
            long started = System.nanoTime();
            try {
                id = requestId(data.appMetadata());
                Faults.Injected fault = faults.nextBulk();
                if (fault != null) {
                    record(table, 0, fault.code());
                    throw new ServerError(fault.code(), fault.message(), fault.retryable());
                }
                if (faults.neverRespond()) {
                    // A hung server: the batch is neither stored nor answered, and the stream is never ended.
                    record(table, 0, null);
                    synchronized (this) {
                        held++;
                    }
                    body.close();
                    return;
                }
                m = Message.getRootAsMessage(ByteBuffer.wrap(data.header()));
                int rows = m.headerType() == MessageHeader.RecordBatch
                        ? (int) ((RecordBatch) m.header(new RecordBatch())).length() : 0;
                point = faults.holdPoint(() -> new RecordedRequest("DoPut", "bulk", db, user, "", Map.of(),
                        RequestProcessor.ascii(md), List.of(table), rows, null));
                synchronized (this) {
                    if (point == Faults.HoldPoint.BEFORE_STORE || !backlog.isEmpty()) {
                        record(table, rows, null);
                        Message header = m;
                        long requestId = id;
                        backlog.add(() -> {
                            if (refused) {
                                body.close();
                                return;
                            }
                            guarded(() -> store(body, header, requestId, started, false));
                        });
                        faults.held(this::storeNextHeld);
                        return;
                    }
                }
            } catch (RuntimeException e) {
                body.close();
                throw e;
            }
            store(body, m, id, started, point == Faults.HoldPoint.BEFORE_ANSWER);
        }

        /** Stores (and answers) the oldest batch held before storing. */
        private synchronized void storeNextHeld() {
            Runnable next = backlog.poll();
            if (next != null) {
                next.run();
            }
            finishIfAnswered();
        }

        /** Stores a batch, taking over its body, and answers it (on release when {@code holdAnswer}). */
        private void store(ArrowBuf body, Message m, long id, long started, boolean holdAnswer)
                throws Exception {
            boolean taken = false;
            try {
                List<TableSchema.Column> tableColumns = storage.bulkTarget(db, table, allowAutoCreate ? fromMetadata() : null);
                if (m.headerType() != MessageHeader.RecordBatch) {
                    throw new ServerError(StatusCode.InvalidArguments, "Expected a record batch, got message type " + m.headerType());
                }
                List<TableSchema.Column> matched = new ArrayList<>();
                List<Object[]> rows;
                int rowCount;
                taken = true;
                ArrowRecordBatch rb = MessageSerializer.deserializeRecordBatch((RecordBatch) m.header(new RecordBatch()), body);
                try (rb; VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator())) {
                    new VectorLoader(root, CommonsCompressionFactory.INSTANCE).load(rb);
                    rows = decode(root, tableColumns, matched, storage.retainsRows());
                    rowCount = root.getRowCount();
                }
                int n = rows != null ? storage.bulkInsert(db, table, matched, rows) : storage.bulkCount(db, table, rowCount);
                record(table, n, StatusCode.Success);
                synchronized (this) {
                    streamUnanswered++;
                    maxUnanswered.accumulateAndGet(unanswered.incrementAndGet(), Math::max);
                }
                if (faults.bulkNeverAck()) {
                    return;
                }
                synchronized (this) {
                    answersOwed++;
                }
                double elapsed = (System.nanoTime() - started) / 1e9;
                if (holdAnswer) {
                    faults.held(() -> answer(id, n, elapsed));
                    return;
                }
                long delay = faults.bulkAckDelay().toNanos();
                if (delay == 0) {
                    answer(id, n, elapsed);
                } else {
                    acks.schedule(() -> answer(id, n, elapsed), delay, TimeUnit.NANOSECONDS);
                }
            } finally {
                if (!taken) {
                    body.close();
                }
            }
        }

        private void record(String t, int rows, StatusCode outcome) {
            log.add(new RecordedRequest("DoPut", "bulk", db, user, "", Map.of(), RequestProcessor.ascii(md),
                    t == null ? List.of() : List.of(t), rows, outcome));
        }

        private List<TableSchema.Column> fromMetadata() {
            List<TableSchema.Column> cols = new ArrayList<>();
            for (Field f : schema.getFields()) {
                TableSchema.Column c = ServerTypes.columnOf(f);
                if (c == null) {
                    return null;
                }
                cols.add(c);
            }
            return cols;
        }

        /** Checks the batch against the table; returns its rows as values, or null when only counting. */
        private List<Object[]> decode(VectorSchemaRoot root, List<TableSchema.Column> tableColumns,
                                      List<TableSchema.Column> matched, boolean materialise) {
            List<FieldVector> vectors = new ArrayList<>();
            TableSchema.Column timeIndex = null;
            for (TableSchema.Column tc : tableColumns) {
                if (tc.semanticType() == SemanticType.Timestamp) {
                    timeIndex = tc;
                }
            }
            for (FieldVector v : root.getFieldVectors()) {
                TableSchema.Column tc = null;
                int tableIndex = -1;
                for (int i = 0; i < tableColumns.size(); i++) {
                    if (tableColumns.get(i).name().equals(v.getName())) {
                        tc = tableColumns.get(i);
                        tableIndex = i;
                    }
                }
                if (tc == null) {
                    continue; // unknown columns are ignored, as on the server
                }
                ArrowType expected = ServerTypes.arrowType(tc);
                if (!expected.equals(v.getField().getType())) {
                    // The server builds an arrow-rs RecordBatch in the table's schema from the batch's columns and
                    // reports arrow's own error as Unexpected (as GreptimeDB 1.2 answers;
                    // src/operator/src/bulk_insert.rs).
                    throw new ServerError(StatusCode.Unexpected, "Failed to create RecordBatch from vectors: Invalid"
                            + " argument error: column types must match schema types, expected "
                            + ServerTypes.arrowTypeName(expected) + " but found "
                            + ServerTypes.arrowTypeName(v.getField().getType()) + " at column index " + tableIndex);
                }
                matched.add(tc);
                vectors.add(v);
            }
            if (timeIndex == null || !matched.contains(timeIndex)) {
                throw new ServerError(StatusCode.InvalidArguments, "Bulk insert into " + table + " lacks the time index column");
            }
            int ts = matched.indexOf(timeIndex);
            if (!materialise) {
                if (vectors.get(ts).getNullCount() > 0) {
                    throw new ServerError(StatusCode.InvalidArguments, "Time index " + timeIndex.name() + " of table "
                            + table + " has null values");
                }
                refuseOutOfRangeTimes(timeIndex, vectors.get(ts), root.getRowCount());
                return null;
            }
            List<Object[]> rows = new ArrayList<>(root.getRowCount());
            for (int r = 0; r < root.getRowCount(); r++) {
                Object[] row = new Object[matched.size()];
                for (int c = 0; c < matched.size(); c++) {
                    row[c] = value(matched.get(c).dataType(), vectors.get(c), r);
                }
                if (row[ts] == null) {
                    throw new ServerError(StatusCode.InvalidArguments, "Time index " + timeIndex.name() + " of table "
                            + table + " is null at row " + r);
                }
                rows.add(row);
            }
            refuseOutOfRangeTimes(timeIndex, vectors.get(ts), root.getRowCount());
            return rows;
        }

        /** The region refuses a batch holding a time outside its range ({@link TimeBuckets}). */
        private void refuseOutOfRangeTimes(TableSchema.Column timeIndex, FieldVector times, int rowCount) {
            long[] values = new long[rowCount];
            for (int r = 0; r < rowCount; r++) {
                values[r] = ((BaseFixedWidthVector) times).getDataBuffer().getLong((long) r * 8);
            }
            String refusal = TimeBuckets.bulkWriteRefusal(timeIndex.dataType(), values);
            if (refusal != null) {
                throw new ServerError(StatusCode.InvalidArguments, storage.regionPrefix(db, table) + refusal);
            }
        }

        @Override
        public void onError(Throwable t) {
            synchronized (this) {
                done = true;
                outEnded = true;
                lastWord = null;
                unanswered.addAndGet(-streamUnanswered);
                streamUnanswered = 0;
            }
        }

        @Override
        public synchronized void onCompleted() {
            halfClosed = true;
            finishIfAnswered();
        }

        /** Ends the stream once the client is done and every batch is answered; a batch held open keeps it open. */
        private synchronized void finishIfAnswered() {
            if (done || !halfClosed) {
                return;
            }
            if (held > 0 || streamUnanswered > 0 || !backlog.isEmpty()) {
                return; // the last answer ends it (never, for batches held by neverRespond or bulkNeverAck)
            }
            done = true;
            outEnded = true;
            out.onCompleted();
        }
    }

    /** One step of a bulk stream. */
    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    /**
     * Reads the batch's {@code request_id} from its {@code app_metadata} JSON as the server does
     * ({@code src/common/grpc/src/flight/do_put.rs}): metadata that is missing or does not parse means id 0.
     */
    static long requestId(byte[] appMetadata) {
        if (appMetadata == null || appMetadata.length == 0) {
            return 0;
        }
        try {
            JsonElement json = JsonParser.parseString(new String(appMetadata, StandardCharsets.UTF_8));
            JsonElement id = json.isJsonObject() ? json.getAsJsonObject().get("request_id") : null;
            return id != null && id.isJsonPrimitive() && id.getAsJsonPrimitive().isNumber() ? id.getAsLong() : 0;
        } catch (RuntimeException e) {
            return 0;
        }
    }

    static Object value(DataType type, FieldVector v, int r) {
        if (v.isNull(r)) {
            return null;
        }
        switch (type) {
            case Bool: return ((BitVector) v).get(r) == 1;
            case String: return new String(((VarCharVector) v).get(r), StandardCharsets.UTF_8);
            // JSON columns are Binary on this path; the open-source server stores the bytes unconverted (JSONB
            // expected), so they read back as the bytes sent.
            case Binary: case Json: case Vector: return ((VarBinaryVector) v).get(r);
            case Decimal128: return ((DecimalVector) v).getObject(r);
            case Float32: return ((BaseFixedWidthVector) v).getDataBuffer().getFloat((long) r * 4);
            case Float64: return ((BaseFixedWidthVector) v).getDataBuffer().getDouble((long) r * 8);
            case Date: return LocalDate.ofEpochDay(((BaseFixedWidthVector) v).getDataBuffer().getInt((long) r * 4));
            default:
                ArrowBuf d = ((BaseFixedWidthVector) v).getDataBuffer();
                int w = ((BaseFixedWidthVector) v).getTypeWidth();
                long at = (long) r * w;
                switch (type) {
                    case Int8: return (long) d.getByte(at);
                    case Int16: return (long) d.getShort(at);
                    case Int32: case TimeSecond: case TimeMillisecond: return (long) d.getInt(at);
                    case UInt8: return (long) (d.getByte(at) & 0xFF);
                    case UInt16: return (long) (d.getShort(at) & 0xFFFF);
                    case UInt32: return d.getInt(at) & 0xFFFF_FFFFL;
                    case UInt64: return new BigInteger(Long.toUnsignedString(d.getLong(at)));
                    default: return d.getLong(at);
                }
        }
    }

    private String checkAuth(Metadata md) {
        if (!auth.authRequired()) {
            return null;
        }
        // src/servers/src/grpc/context_auth.rs check_auth(): x-greptime-auth first, then the standard authorization.
        String header = md.get(AUTH);
        if (header == null) {
            header = md.get(AUTHORIZATION);
        }
        if (header == null) {
            throw new ServerError(StatusCode.AuthHeaderNotFound, "Not found http or grpc authorization header").toStatus();
        }
        // The scheme word is matched case-insensitively; a bare value is taken as Basic credentials (check_auth).
        String b64 = header.length() > 5 && header.regionMatches(true, 0, "Basic", 0, 5) ? header.substring(5).trim()
                : header.trim();
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw ServerError.withoutTrailers(StatusCode.InvalidAuthHeader, "auth failed").toStatus();
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            throw ServerError.withoutTrailers(StatusCode.InvalidAuthHeader, "auth failed").toStatus();
        }
        String user = decoded.substring(0, colon);
        try {
            auth.checkUser(user, decoded.substring(colon + 1));
        } catch (ServerError e) {
            // DoPut answers a wrong password and an unknown user alike, without a code trailer (as GreptimeDB
            // 1.2 answers; src/servers/src/grpc/flight.rs authenticates before its error conversion).
            throw ServerError.withoutTrailers(StatusCode.UserPasswordMismatch, "auth failed").toStatus();
        }
        return user;
    }

    private static String database(Metadata md) {
        String name = md.get(DB);
        if (name == null || name.isEmpty()) {
            return "public";
        }
        // Lowercased and split at the first '-' as on Handle (DbString cites the server's parser).
        DbString parsed = DbString.parse(name);
        if (!parsed.defaultCatalog()) {
            throw new ServerError(StatusCode.InvalidArguments, "Failed to find schema, schema info: " + name);
        }
        return parsed.schema();
    }

    private BufferAllocator allocator() {
        BufferAllocator a = allocator;
        if (a == null) {
            synchronized (this) {
                a = allocator;
                if (a == null) {
                    a = new RootAllocator();
                    allocator = a;
                }
            }
        }
        return a;
    }

    void close() {
        acks.shutdownNow();
        BufferAllocator a;
        synchronized (this) {
            a = allocator;
        }
        if (a == null) {
            return;
        }
        try {
            a.close();
        } catch (IllegalStateException stillInUse) {
            // A stream cut off by the stop still holds a body; its memory is freed when that stream ends.
        }
    }
}
