package dev.sluice.testkit;

import static dev.sluice.testkit.TestkitProtocolTest.TS;
import static dev.sluice.testkit.TestkitProtocolTest.col;
import static dev.sluice.testkit.TestkitProtocolTest.insert;
import static dev.sluice.testkit.TestkitProtocolTest.row;
import static dev.sluice.testkit.TestkitProtocolTest.s;
import static dev.sluice.testkit.TestkitProtocolTest.ts;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.internal.wire.AuthHeader;
import dev.sluice.internal.wire.Basic;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.SemanticType;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import java.util.function.Consumer;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DoPut answers as a real GreptimeDB (1.2) gives them, driven by Arrow's own Flight client (no Sluice code):
 * one test per answer a client can observe.
 */
class BulkAnswersTest {
    BufferAllocator allocator;
    GreptimeTestServer server;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
        allocator.close();
    }

    /** Creates a table through Handle (the open-source server's DoPut needs an existing table). */
    static void create(GreptimeTestServer server, GreptimeRequest insert, String user, String password) {
        ManagedChannel ch = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
        try {
            GreptimeRequest req = user == null ? insert : insert.toBuilder().setHeader(RequestHeader.newBuilder()
                    .setDbname("public").setAuthorization(AuthHeader.newBuilder()
                            .setBasic(Basic.newBuilder().setUsername(user).setPassword(password)))).build();
            GreptimeDatabaseGrpc.newBlockingStub(ch).withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS).handle(req);
        } finally {
            ch.shutdownNow();
        }
    }

    static Field field(String name, ArrowType type, boolean nullable) {
        return new Field(name, new FieldType(nullable, type, null), null);
    }

    /** Sends one batch of one row over DoPut and returns the stream's outcome (throws the stream's error). */
    void put(String db, String auth, String table, Schema schema, Consumer<VectorSchemaRoot> fill) throws Exception {
        try (FlightClient client = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
             VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
             SyncPutListener results = new SyncPutListener()) {
            FlightCallHeaders headers = new FlightCallHeaders();
            if (db != null) {
                headers.insert("x-greptime-db-name", db);
            }
            if (auth != null) {
                headers.insert("x-greptime-auth", auth);
            }
            FlightClient.ClientStreamListener stream = client.startPut(FlightDescriptor.path(table), root, results,
                    new HeaderCallOption(headers));
            root.allocateNew();
            fill.accept(root);
            root.setRowCount(1);
            byte[] md = "{\"request_id\":7}".getBytes(StandardCharsets.UTF_8);
            ArrowBuf buf = allocator.buffer(md.length);
            buf.writeBytes(md);
            stream.putNext(buf);
            stream.completed();
            stream.getResult();
        }
    }

    /** The {@code x-greptime-err-code} trailer, or null. */
    static String code(FlightRuntimeException e) {
        return e.status().metadata().containsKey("x-greptime-err-code") ? e.status().metadata().get("x-greptime-err-code") : null;
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aJsonColumnOverDoPutIsStoredAsTheBytesSent() throws Exception {
        server = GreptimeTestServer.start();
        create(server, insert("j", List.of(col("j", ColumnDataType.JSON, SemanticType.FIELD), TS), row(s("{}"), ts(1))),
                null, null);
        byte[] body = new byte[] {0x40, 0, 0, 0}; // JSONB of an empty object; stored unconverted
        put("public", null, "j", new Schema(List.of(field("j", ArrowType.Binary.INSTANCE, true),
                field("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), false))), root -> {
                    ((VarBinaryVector) root.getVector("j")).setSafe(0, body);
                    ((TimeStampMilliVector) root.getVector("ts")).set(0, 2);
                });
        assertEquals(2, server.rowCount("j"));
        assertArrayEquals(body, (byte[]) server.rows("j").get(1).get("j"));
    }

    @Test
    void anArrowTypeUnlikeTheTablesIsUnexpectedWithArrowsWording() throws Exception {
        server = GreptimeTestServer.start();
        create(server, insert("t", List.of(col("s", ColumnDataType.STRING, SemanticType.FIELD), TS), row(s("x"), ts(1))),
                null, null);
        FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> put("public", null, "t",
                new Schema(List.of(field("s", new ArrowType.Int(64, true), true),
                        field("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), false))), root -> {
                            ((BigIntVector) root.getVector("s")).set(0, 5);
                            ((TimeStampMilliVector) root.getVector("ts")).set(0, 2);
                        }));
        assertEquals(FlightStatusCode.INTERNAL, e.status().code());
        assertEquals("1002", code(e));
        assertEquals("Failed to create RecordBatch from vectors: Invalid argument error: column types must match schema"
                + " types, expected Utf8 but found Int64 at column index 0", e.status().description());

        FlightRuntimeException unit = assertThrows(FlightRuntimeException.class, () -> put("public", null, "t",
                new Schema(List.of(field("ts", new ArrowType.Timestamp(TimeUnit.SECOND, null), false))),
                root -> ((TimeStampSecVector) root.getVector("ts")).set(0, 2)));
        assertEquals(FlightStatusCode.INTERNAL, unit.status().code());
        assertEquals("Failed to create RecordBatch from vectors: Invalid argument error: column types must match schema"
                + " types, expected Timestamp(Millisecond, None) but found Timestamp(Second, None) at column index 1",
                unit.status().description());
        assertEquals(1, server.rowCount("t"));
    }

    @Test
    void aMissingDatabaseIsTableNotFound() {
        server = GreptimeTestServer.start();
        FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> put("nodb", null, "t",
                new Schema(List.of(field("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), false))),
                root -> ((TimeStampMilliVector) root.getVector("ts")).set(0, 2)));
        assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
        assertEquals("4001", code(e));
        assertEquals("Table not found: greptime.nodb.t", e.status().description());
    }

    @Test
    void authFailuresOnDoPutAnswerAsTheServer() throws Exception {
        server = GreptimeTestServer.builder().user("u", "p").start();
        create(server, insert("t", List.of(TS), row(ts(1))), "u", "p");
        Schema schema = new Schema(List.of(field("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), false)));
        Consumer<VectorSchemaRoot> fill = root -> ((TimeStampMilliVector) root.getVector("ts")).set(0, 2);
        for (String auth : List.of(basic("u", "wrong"), basic("nobody", "p"))) {
            FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> put("public", auth, "t", schema, fill));
            assertEquals(FlightStatusCode.UNAUTHENTICATED, e.status().code(), auth);
            assertEquals("auth failed", e.status().description());
            assertNull(code(e), "no code trailer");
        }
        FlightRuntimeException missing = assertThrows(FlightRuntimeException.class, () -> put("public", null, "t", schema, fill));
        assertEquals(FlightStatusCode.UNAUTHENTICATED, missing.status().code());
        assertEquals("7003", code(missing));
        put("public", basic("u", "p"), "t", schema, fill);
        assertEquals(2, server.rowCount("t"));
    }

    @Test
    void aBulkMessageOverTheLimitIsOutOfRange() {
        server = GreptimeTestServer.builder().maxMessageBytes(4096).start();
        create(server, insert("t", List.of(col("b", ColumnDataType.BINARY, SemanticType.FIELD), TS),
                row(dev.sluice.internal.wire.Value.newBuilder().setBinaryValue(com.google.protobuf.ByteString.EMPTY).build(),
                        ts(1))), null, null);
        FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> put("public", null, "t",
                new Schema(List.of(field("b", ArrowType.Binary.INSTANCE, true),
                        field("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), false))), root -> {
                            ((VarBinaryVector) root.getVector("b")).setSafe(0, new byte[8192]);
                            ((TimeStampMilliVector) root.getVector("ts")).set(0, 2);
                        }));
        // Arrow's Flight client folds gRPC's OUT_OF_RANGE into INVALID_ARGUMENT; the text is tonic's.
        assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.toString());
        assertEquals("Error, decoded message length too large: found " + e.status().description()
                .replaceAll("\\D+(\\d+) bytes.*", "$1") + " bytes, the limit is: 4096 bytes", e.status().description());
        assertNull(code(e));
        assertEquals(1, server.rowCount("t"));
    }
}
