package dev.sluice.testkit;

import static dev.sluice.testkit.TestkitProtocolTest.TS;
import static dev.sluice.testkit.TestkitProtocolTest.col;
import static dev.sluice.testkit.TestkitProtocolTest.insert;
import static dev.sluice.testkit.TestkitProtocolTest.row;
import static dev.sluice.testkit.TestkitProtocolTest.ts;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.gson.JsonArray;
import com.google.protobuf.ByteString;
import dev.sluice.data.DataType;
import dev.sluice.data.VectorType;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnDataTypeExtension;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.internal.wire.Value;
import dev.sluice.internal.wire.VectorTypeExtension;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * VECTOR(dim) columns written as any GreptimeDB client writes them: generated protobuf requests, each value a
 * {@code binary_value} of dim little-endian float32s, the dimension in {@code datatype_extension.vector_type}.
 */
class VectorColumnTest {
    static final Metadata.Key<String> ERR_CODE = Metadata.Key.of("x-greptime-err-code", Metadata.ASCII_STRING_MARSHALLER);

    GreptimeTestServer server;
    ManagedChannel channel;
    GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub stub;

    @BeforeEach
    void start() {
        server = GreptimeTestServer.builder().httpPort(0).start();
        channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
        stub = GreptimeDatabaseGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() {
        channel.shutdownNow();
        server.close();
    }

    static ColumnSchema vectorColumn(String name, int dim) {
        return ColumnSchema.newBuilder(col(name, ColumnDataType.VECTOR, SemanticType.FIELD))
                .setDatatypeExtension(ColumnDataTypeExtension.newBuilder()
                        .setVectorType(VectorTypeExtension.newBuilder().setDim(dim))).build();
    }

    /** Little-endian float32s, written out byte by byte (independently of any ByteBuffer-based encoder). */
    static Value vector(float... elements) {
        byte[] b = new byte[elements.length * 4];
        for (int i = 0; i < elements.length; i++) {
            int bits = Float.floatToRawIntBits(elements[i]);
            b[4 * i] = (byte) bits;
            b[4 * i + 1] = (byte) (bits >>> 8);
            b[4 * i + 2] = (byte) (bits >>> 16);
            b[4 * i + 3] = (byte) (bits >>> 24);
        }
        return Value.newBuilder().setBinaryValue(ByteString.copyFrom(b)).build();
    }

    @Test
    void aVectorColumnIsCreatedWithItsDimensionStoredAndReadBackAsFloats() {
        assertEquals(2, stub.handle(insert("emb", List.of(vectorColumn("v", 3), TS),
                row(vector(1f, -2.5f, 3e-7f), ts(1)), row(Value.getDefaultInstance(), ts(2)))).getAffectedRows().getValue());
        assertEquals(DataType.Vector, server.schema("emb").column(0).dataType());
        assertEquals(new VectorType(3), server.schema("emb").column(0).vectorType());
        List<Map<String, Object>> rows = server.rows("emb");
        assertArrayEquals(new float[] {1f, -2.5f, 3e-7f}, (float[]) rows.get(0).get("v"));
        assertNull(rows.get(1).get("v"), "an unset value is NULL");
        ((float[]) rows.get(0).get("v"))[0] = 42f;
        assertEquals(1f, ((float[]) server.rows("emb").get(0).get("v"))[0], "rows() hands out copies");
    }

    @Test
    void aColumnWiseInsertCarriesVectorsInBinaryValues() {
        dev.sluice.internal.wire.Column v = dev.sluice.internal.wire.Column.newBuilder().setColumnName("v")
                .setDatatype(ColumnDataType.VECTOR).setSemanticType(SemanticType.FIELD)
                .setDatatypeExtension(vectorColumn("v", 2).getDatatypeExtension())
                .setValues(dev.sluice.internal.wire.Column.Values.newBuilder()
                        .addBinaryValues(vector(1f, 2f).getBinaryValue()).addBinaryValues(vector(3f, 4f).getBinaryValue()))
                .build();
        dev.sluice.internal.wire.Column t = dev.sluice.internal.wire.Column.newBuilder().setColumnName("ts")
                .setDatatype(ColumnDataType.TIMESTAMP_MILLISECOND).setSemanticType(SemanticType.TIMESTAMP)
                .setValues(dev.sluice.internal.wire.Column.Values.newBuilder()
                        .addTimestampMillisecondValues(1).addTimestampMillisecondValues(2)).build();
        assertEquals(2, stub.handle(dev.sluice.internal.wire.GreptimeRequest.newBuilder()
                .setHeader(dev.sluice.internal.wire.RequestHeader.newBuilder().setDbname("public"))
                .setInserts(dev.sluice.internal.wire.InsertRequests.newBuilder().addInserts(
                        dev.sluice.internal.wire.InsertRequest.newBuilder().setTableName("cw").setRowCount(2)
                                .addColumns(v).addColumns(t))).build()).getAffectedRows().getValue());
        assertEquals(new VectorType(2), server.schema("cw").column(0).vectorType());
        assertArrayEquals(new float[] {3f, 4f}, (float[]) server.rows("cw").get(1).get("v"));
    }

    @Test
    void aWriteDeclaringAnotherDimensionIsRefusedAsTheRegionRefusesATypeMismatch() {
        stub.handle(insert("emb", List.of(vectorColumn("v", 3), TS), row(vector(1f, 2f, 3f), ts(1))));
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> stub.handle(insert("emb", List.of(vectorColumn("v", 2), TS), row(vector(1f, 2f), ts(2)))));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals("1004", e.getTrailers().get(ERR_CODE));
        assertEquals("Invalid request to region 4398046511104(1024, 0), reason: column v expect type"
                + " Vector(VectorType { dim: 3 }), given: VECTOR(32)", e.getStatus().getDescription());
        assertEquals(1, server.rowCount("emb"), "nothing of the refused write is stored");
    }

    @Test
    void aVectorColumnWithoutAnExtensionIsVectorOfDimensionZero() {
        stub.handle(insert("emb", List.of(col("v", ColumnDataType.VECTOR, SemanticType.FIELD), TS),
                row(vector(), ts(1))));
        assertEquals(new VectorType(0), server.schema("emb").column(0).vectorType());
        assertArrayEquals(new float[0], (float[]) server.rows("emb").get(0).get("v"));
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> stub.handle(insert("emb", List.of(vectorColumn("v", 3), TS), row(vector(1f, 2f, 3f), ts(2)))));
        assertEquals("1004", e.getTrailers().get(ERR_CODE));
        assertEquals("Invalid request to region 4398046511104(1024, 0), reason: column v expect type"
                + " Vector(VectorType { dim: 0 }), given: VECTOR(32)", e.getStatus().getDescription());
    }

    @Test
    void aValueOfAnotherCaseThanBinaryIsRefused() {
        stub.handle(insert("emb", List.of(vectorColumn("v", 1), TS), row(vector(1f), ts(1))));
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.handle(insert("emb",
                List.of(vectorColumn("v", 1), TS), row(Value.newBuilder().setF32Value(1f).build(), ts(2)))));
        assertEquals("1004", e.getTrailers().get(ERR_CODE));
        assertEquals(1, server.rowCount("emb"));
    }

    @Test
    void aValueOfTheWrongByteCountIsRefusedWhileVectorColumnsLeadTheSchema() {
        // src/operator/src/req_convert/common.rs validate_rows: the length check runs over the schema in order and
        // stops at the first column that is not a vector.
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.handle(
                insert("emb", List.of(vectorColumn("v", 3), TS), row(vector(1f, 2f), ts(1)))));
        assertEquals("1004", e.getTrailers().get(ERR_CODE));
        assertEquals("Invalid InsertRequest, reason: Expecting 12 bytes of data for vector column, but got 8.",
                e.getStatus().getDescription());
        assertEquals(0, server.rowCount("emb"));
    }

    @Test
    void aValueOfTheWrongByteCountAfterANonVectorColumnIsKeptAsSentLikeTheServer() {
        // The same loop returns at the first non-vector column, and the region checks only the column's type
        // (src/mito2/src/request.rs): the bytes are stored and read back raw; only printing them fails.
        stub.handle(insert("emb", List.of(TS, vectorColumn("v", 3)), row(ts(1), vector(1f, 2f))));
        Object stored = server.rows("emb").get(0).get("v");
        assertArrayEquals(vector(1f, 2f).getBinaryValue().toByteArray(), (byte[]) stored);
    }

    @Test
    void sqlDeclaresDescribesAndPrintsVectorsAsTheServerDoes() throws Exception {
        assertEquals(200, SqlHttpEndpointTest.sql(server, "CREATE TABLE emb (v VECTOR(3), ts TIMESTAMP TIME INDEX)")
                .statusCode());
        assertEquals(new VectorType(3), server.schema("emb").column(0).vectorType());
        stub.handle(insert("emb", List.of(vectorColumn("v", 3), TS), row(vector(1f, 2.5f, -0.125f), ts(1))));
        JsonArray desc = SqlHttpEndpointTest.rows(SqlHttpEndpointTest.sql(server, "DESC TABLE emb"));
        assertEquals("Vector(3)", desc.get(0).getAsJsonArray().get(1).getAsString());
        HttpResponse<String> r = SqlHttpEndpointTest.sql(server, "SELECT v FROM emb");
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("[1,2.5,-0.125]", SqlHttpEndpointTest.rows(r).get(0).getAsJsonArray().get(0).getAsString());
    }
}
