package dev.sluice.testkit.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import dev.sluice.internal.wire.AuthHeader;
import dev.sluice.internal.wire.Basic;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnDataTypeExtension;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.Decimal128;
import dev.sluice.internal.wire.DecimalTypeExtension;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.GreptimeResponse;
import dev.sluice.internal.wire.HealthCheckGrpc;
import dev.sluice.internal.wire.HealthCheckRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.RowDeleteRequest;
import dev.sluice.internal.wire.RowDeleteRequests;
import dev.sluice.internal.wire.RowInsertRequest;
import dev.sluice.internal.wire.RowInsertRequests;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.internal.wire.Value;
import dev.sluice.testkit.GreptimeTestServer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The testkit driven from outside as another GreptimeDB client would, with raw
 * generated protobuf messages over grpc-java, Arrow's own FlightClient and java.net.http; no Sluice client code.
 * Expected answers come from a real GreptimeDB's behaviour or its public source (cited per test).
 */
@Timeout(120)
class RawClientAnswersTest {
    static final Metadata.Key<String> CODE = Metadata.Key.of("x-greptime-err-code", Metadata.ASCII_STRING_MARSHALLER);
    static final ColumnSchema TS = cs("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP);
    static final ColumnSchema HOST = cs("host", ColumnDataType.STRING, SemanticType.TAG);

    GreptimeTestServer server;
    ManagedChannel channel;
    GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub stub;

    @BeforeEach
    void up() {
        server = GreptimeTestServer.builder().httpPort(0).start();
        open();
    }

    void open() {
        channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
        stub = GreptimeDatabaseGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    @AfterEach
    void down() {
        channel.shutdownNow();
        server.close();
    }

    void restartWithUser() {
        down();
        server = GreptimeTestServer.builder().httpPort(0).user("u", "p").start();
        open();
    }

    // ---- raw message helpers (written here, not borrowed from the testkit's own tests) ----

    static ColumnSchema cs(String name, ColumnDataType t, SemanticType s) {
        return ColumnSchema.newBuilder().setColumnName(name).setDatatype(t).setSemanticType(s).build();
    }

    static Row row(Value... v) {
        return Row.newBuilder().addAllValues(Arrays.asList(v)).build();
    }

    static Value ts(long ms) {
        return Value.newBuilder().setTimestampMillisecondValue(ms).build();
    }

    static Value str(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    static Value i64(long v) {
        return Value.newBuilder().setI64Value(v).build();
    }

    static Value f64(double v) {
        return Value.newBuilder().setF64Value(v).build();
    }

    static final Value NULL = Value.getDefaultInstance();

    static GreptimeRequest ins(String table, List<ColumnSchema> schema, Row... rows) {
        return GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setRowInserts(RowInsertRequests.newBuilder().addInserts(RowInsertRequest.newBuilder().setTableName(table)
                        .setRows(Rows.newBuilder().addAllSchema(schema).addAllRows(Arrays.asList(rows))))).build();
    }

    static GreptimeRequest del(String table, List<ColumnSchema> schema, Row... rows) {
        return GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setRowDeletes(RowDeleteRequests.newBuilder().addDeletes(RowDeleteRequest.newBuilder().setTableName(table)
                        .setRows(Rows.newBuilder().addAllSchema(schema).addAllRows(Arrays.asList(rows))))).build();
    }

    GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub hints(String h) {
        Metadata md = new Metadata();
        md.put(Metadata.Key.of("x-greptime-hints", Metadata.ASCII_STRING_MARSHALLER), h);
        return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
    }

    static StatusRuntimeException refused(Runnable call, Status.Code grpc, String code) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call::run);
        assertEquals(grpc, e.getStatus().getCode(), e.getStatus().toString());
        assertEquals(code, e.getTrailers() == null ? null : e.getTrailers().get(CODE), "code trailer of " + e.getStatus());
        return e;
    }

    int affected(GreptimeRequest r) {
        return stub.handle(r).getAffectedRows().getValue();
    }

    // ---- every column type: value cases round-trip ----

    @Test
    void everyWritableTypeRoundTripsAtItsEdges() {
        ColumnDataTypeExtension dec = ColumnDataTypeExtension.newBuilder()
                .setDecimalType(DecimalTypeExtension.newBuilder().setPrecision(10).setScale(2)).build();
        List<ColumnSchema> schema = List.of(
                cs("b", ColumnDataType.BOOLEAN, SemanticType.FIELD), cs("i8", ColumnDataType.INT8, SemanticType.FIELD),
                cs("i16", ColumnDataType.INT16, SemanticType.FIELD), cs("i32", ColumnDataType.INT32, SemanticType.FIELD),
                cs("i64", ColumnDataType.INT64, SemanticType.FIELD), cs("u8", ColumnDataType.UINT8, SemanticType.FIELD),
                cs("u16", ColumnDataType.UINT16, SemanticType.FIELD), cs("u32", ColumnDataType.UINT32, SemanticType.FIELD),
                cs("u64", ColumnDataType.UINT64, SemanticType.FIELD), cs("f32", ColumnDataType.FLOAT32, SemanticType.FIELD),
                cs("f64", ColumnDataType.FLOAT64, SemanticType.FIELD), cs("bin", ColumnDataType.BINARY, SemanticType.FIELD),
                cs("s", ColumnDataType.STRING, SemanticType.FIELD), cs("d", ColumnDataType.DATE, SemanticType.FIELD),
                cs("tns", ColumnDataType.TIMESTAMP_NANOSECOND, SemanticType.FIELD),
                cs("tm", ColumnDataType.TIME_MICROSECOND, SemanticType.FIELD),
                cs("dec", ColumnDataType.DECIMAL128, SemanticType.FIELD).toBuilder().setDatatypeExtension(dec).build(),
                TS);
        Row r = row(Value.newBuilder().setBoolValue(true).build(), Value.newBuilder().setI8Value(-128).build(),
                Value.newBuilder().setI16Value(32767).build(), Value.newBuilder().setI32Value(Integer.MIN_VALUE).build(),
                i64(Long.MAX_VALUE), Value.newBuilder().setU8Value(255).build(), Value.newBuilder().setU16Value(65535).build(),
                Value.newBuilder().setU32Value(-1).build(), Value.newBuilder().setU64Value(-1L).build(),
                Value.newBuilder().setF32Value(1.5f).build(), f64(-0.25),
                Value.newBuilder().setBinaryValue(ByteString.copyFrom(new byte[] {0, -1, 7})).build(), str("héllo"),
                Value.newBuilder().setDateValue(-1).build(), Value.newBuilder().setTimestampNanosecondValue(-5).build(),
                Value.newBuilder().setTimeMicrosecondValue(86_399_999_999L).build(),
                // -123.45 at scale 2: unscaled -12345 as a 128-bit two's complement, hi = -1
                Value.newBuilder().setDecimal128Value(Decimal128.newBuilder().setHi(-1).setLo(-12345)).build(), ts(7));
        assertEquals(1, affected(ins("all", schema, r)));
        Map<String, Object> got = server.rows("all").get(0);
        assertEquals(true, got.get("b"));
        assertEquals(-128L, got.get("i8"));
        assertEquals(32767L, got.get("i16"));
        assertEquals((long) Integer.MIN_VALUE, got.get("i32"));
        assertEquals(Long.MAX_VALUE, got.get("i64"));
        assertEquals(255L, got.get("u8"));
        assertEquals(65535L, got.get("u16"));
        assertEquals(4294967295L, got.get("u32"));
        assertEquals(new BigInteger("18446744073709551615"), got.get("u64"));
        assertEquals(1.5f, got.get("f32"));
        assertEquals(-0.25, got.get("f64"));
        assertTrue(Arrays.equals(new byte[] {0, -1, 7}, (byte[]) got.get("bin")));
        assertEquals("héllo", got.get("s"));
        assertEquals(LocalDate.of(1969, 12, 31), got.get("d"));
        assertEquals(-5L, got.get("tns"));
        assertEquals(86_399_999_999L, got.get("tm"));
        assertEquals(new BigDecimal("-123.45"), got.get("dec"));
        assertEquals(7L, got.get("ts"));
    }

    @Test
    void smallIntegersOutOfRangeWrapLikeRustAsCasts() {
        // src/api/src/helper.rs converts i8_value/i16_value/u8_value/u16_value with `as` casts (wrapping).
        List<ColumnSchema> schema = List.of(cs("a", ColumnDataType.INT16, SemanticType.FIELD),
                cs("b", ColumnDataType.UINT8, SemanticType.FIELD), cs("c", ColumnDataType.UINT16, SemanticType.FIELD), TS);
        stub.handle(ins("w", schema, row(Value.newBuilder().setI16Value(40000).build(),
                Value.newBuilder().setU8Value(300).build(), Value.newBuilder().setU16Value(70000).build(), ts(1))));
        Map<String, Object> got = server.rows("w").get(0);
        assertEquals(-25536L, got.get("a"));
        assertEquals(44L, got.get("b"));
        assertEquals(4464L, got.get("c"));
    }

    /**
     * A value whose oneof case is not the column's declared type (declared INT64, sent f64_value). The region
     * worker's check is src/mito2/src/request.rs {@code validate_proto_value}: InvalidRequest (1004) with the reason
     * {@code value has type Float64, but column v has type Int64(4)} (ColumnDataType printed with Debug).
     */
    @Test
    void valueCaseUnlikeTheDeclaredTypeIsWordedAsMitosValidateProtoValue() {
        StatusRuntimeException e = refused(() -> stub.handle(ins("vt", List.of(cs("v", ColumnDataType.INT64,
                SemanticType.FIELD), TS), row(f64(1.5), ts(1)))), Status.Code.INVALID_ARGUMENT, "1004");
        String d = e.getStatus().getDescription();
        assertTrue(d.contains("reason: value has type Float64, but column v has type Int64(4)"), d);
    }

    @Test
    void declaredTypeUnlikeTheTablesIsRefusedWithTheServerWording() {
        stub.handle(ins("tt", List.of(cs("v", ColumnDataType.INT32, SemanticType.FIELD), TS),
                row(Value.newBuilder().setI32Value(1).build(), ts(1))));
        StatusRuntimeException e = refused(() -> stub.handle(ins("tt", List.of(cs("v", ColumnDataType.INT64,
                SemanticType.FIELD), TS), row(i64(1), ts(2)))), Status.Code.INVALID_ARGUMENT, "1004");
        assertTrue(e.getStatus().getDescription().endsWith("column v expect type Int32(Int32Type), given: INT64(4)"),
                e.getStatus().getDescription());
        StatusRuntimeException unit = refused(() -> stub.handle(ins("tt", List.of(cs("v", ColumnDataType.INT32,
                SemanticType.FIELD), cs("ts", ColumnDataType.TIMESTAMP_SECOND, SemanticType.TIMESTAMP)),
                row(Value.newBuilder().setI32Value(1).build(), Value.newBuilder().setTimestampSecondValue(2).build()))),
                Status.Code.INVALID_ARGUMENT, "1004");
        assertTrue(unit.getStatus().getDescription().endsWith(
                "column ts expect type Timestamp(Millisecond(TimestampMillisecondType)), given: TIMESTAMP_SECOND(15)"),
                unit.getStatus().getDescription());
        assertEquals(1, server.rowCount("tt"));
    }

    @Test
    void rowWidthUnlikeSchemaAndNullTimeIndexAre1004AndStoreNothing() {
        refused(() -> stub.handle(ins("rw", List.of(HOST, TS), row(str("a")))), Status.Code.INVALID_ARGUMENT, "1004");
        refused(() -> stub.handle(ins("rw", List.of(HOST, TS), row(str("a"), NULL))), Status.Code.INVALID_ARGUMENT, "1004");
        refused(() -> stub.handle(ins("rw", List.of(HOST, cs("ts", ColumnDataType.TIMESTAMP_MILLISECOND,
                SemanticType.TIMESTAMP), cs("ts", ColumnDataType.FLOAT64, SemanticType.FIELD)), row(str("a"), ts(1), f64(1)))),
                Status.Code.INVALID_ARGUMENT, "1004");
        assertTrue(!server.tables().contains("rw") || server.rowCount("rw") == 0);
    }

    // ---- last write wins, append mode, merge mode ----

    @Test
    void sameKeyAndTimeOverwritesEvenInsideOneRequest() {
        List<ColumnSchema> schema = List.of(HOST, cs("v", ColumnDataType.FLOAT64, SemanticType.FIELD), TS);
        assertEquals(2, affected(ins("lww", schema, row(str("a"), f64(1), ts(1)), row(str("a"), f64(2), ts(1)))));
        assertEquals(1, affected(ins("lww", schema, row(str("a"), f64(3), ts(1)))));
        assertEquals(1, server.rowCount("lww"));
        assertEquals(3.0, server.rows("lww").get(0).get("v"));
    }

    @Test
    void appendModeKeepsDuplicates() {
        List<ColumnSchema> schema = List.of(HOST, cs("v", ColumnDataType.FLOAT64, SemanticType.FIELD), TS);
        hints("append_mode=true").handle(ins("ap", schema, row(str("a"), f64(1), ts(1)), row(str("a"), f64(2), ts(1))));
        stub.handle(ins("ap", schema, row(str("a"), f64(3), ts(1))));
        assertEquals(3, server.rowCount("ap"));
    }

    @Test
    void mergeModeLastNonNullKeepsEarlierFieldsWhileLastRowDoesNot() {
        List<ColumnSchema> schema = List.of(HOST, cs("v", ColumnDataType.FLOAT64, SemanticType.FIELD),
                cs("w", ColumnDataType.FLOAT64, SemanticType.FIELD), TS);
        hints("merge_mode=last_non_null").handle(ins("mn", schema, row(str("a"), f64(1), f64(2), ts(1))));
        stub.handle(ins("mn", schema, row(str("a"), NULL, f64(3), ts(1))));
        Map<String, Object> merged = server.rows("mn").get(0);
        assertEquals(1.0, merged.get("v"));
        assertEquals(3.0, merged.get("w"));

        stub.handle(ins("lr", schema, row(str("a"), f64(1), f64(2), ts(1))));
        stub.handle(ins("lr", schema, row(str("a"), NULL, f64(3), ts(1))));
        assertNull(server.rows("lr").get(0).get("v"));
    }

    /**
     * src/mito2/src/region/options.rs: merge_mode deserialises only last_row | last_non_null (serde error:
     * JsonOptions, InvalidArguments 1004) and the region is not created; append_mode parses with FromStr for bool.
     */
    @Test
    void aMergeModeUnlikeLastRowOrLastNonNullIsRefused() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> hints("merge_mode=first_row").handle(ins("mm", List.of(TS), row(ts(1)))));
        assertEquals("1004", e.getTrailers().get(CODE), e.getStatus().toString());
        assertTrue(!server.tables().contains("mm"));
    }

    /** src/mito2/src/region/options.rs validate(): "merge_mode is not allowed when append_mode is enabled" (1004). */
    @Test
    void mergeModeWithAppendModeIsRefused() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> hints("append_mode=true,merge_mode=last_non_null").handle(ins("mm2", List.of(TS), row(ts(1)))));
        assertEquals("1004", e.getTrailers().get(CODE), e.getStatus().toString());
        assertTrue(!server.tables().contains("mm2"));
    }

    /** append_mode is parsed with Rust's bool FromStr (DisplayFromStr): only "true"/"false"; "yes" is 1004. */
    @Test
    void anAppendModeThatIsNotABoolIsRefused() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> hints("append_mode=yes").handle(ins("mm3", List.of(TS), row(ts(1)))));
        assertEquals("1004", e.getTrailers().get(CODE), e.getStatus().toString());
        assertTrue(!server.tables().contains("mm3"));
    }

    // ---- deletes ----

    @Test
    void deletesCountEveryRowSentAndNeedAnExistingTable() {
        List<ColumnSchema> schema = List.of(HOST, cs("v", ColumnDataType.FLOAT64, SemanticType.FIELD), TS);
        stub.handle(ins("dl", schema, row(str("a"), f64(1), ts(1)), row(str("b"), f64(1), ts(1)), row(str("c"), f64(1), ts(1))));
        // the same present key twice and one absent key: the server answers the rows sent (a real GreptimeDB 1.2 does)
        assertEquals(3, affected(del("dl", List.of(HOST, TS), row(str("a"), ts(1)), row(str("a"), ts(1)), row(str("x"), ts(1)))));
        assertEquals(2, server.rowCount("dl"));
        refused(() -> stub.handle(del("nope", List.of(HOST, TS), row(str("a"), ts(1)))), Status.Code.NOT_FOUND, "4001");
        // the time index is required in a delete
        refused(() -> stub.handle(del("dl", List.of(HOST), row(str("b")))), Status.Code.INVALID_ARGUMENT, "1004");
        assertEquals(2, server.rowCount("dl"));
    }

    // ---- hints ----

    @Test
    void ttlHintsReadBackAsHumantimePrintsThem() {
        // src/common/time/src/ttl.rs: lowercased instant/forever/"" first, a zero duration is forever, else
        // humantime::Duration's Display.
        String[][] cases = {{"24h", "1day"}, {"1w", "7days"}, {"0s", "forever"}, {"Instant", "instant"},
                {"3600s", "1h"}, {"1d 12h", "1day 12h"}, {"1500ms", "1s 500ms"}};
        for (int i = 0; i < cases.length; i++) {
            hints("ttl=" + cases[i][0]).handle(ins("ttl" + i, List.of(TS), row(ts(1))));
            assertEquals(cases[i][1], server.tableOptions("public", "ttl" + i).get("ttl"), cases[i][0]);
        }
    }

    @Test
    void hintKeysAndValuesAreTrimmedAndHintsNeverChangeAnExistingTable() {
        hints(" ttl = 7d , append_mode = true ").handle(ins("tr", List.of(HOST, TS), row(str("a"), ts(1))));
        assertEquals("7days", server.tableOptions("public", "tr").get("ttl"));
        hints("ttl=1h").handle(ins("tr", List.of(HOST, TS), row(str("a"), ts(1))));
        assertEquals("7days", server.tableOptions("public", "tr").get("ttl"));
        assertEquals(2, server.rowCount("tr"), "append_mode applied at creation");
    }

    @Test
    void autoCreateTableMustBeExactlyTrueOrFalse() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> hints("auto_create_table=yes").handle(ins("ac", List.of(TS), row(ts(1)))));
        assertEquals("1004", e.getTrailers().get(CODE), e.getStatus().toString());
        assertTrue(!server.tables().contains("ac"));
    }

    // ---- database routing ----

    @Test
    void aDbnameWithADashIsCatalogDashSchema() {
        server.createDatabase("mydb");
        GreptimeRequest r = ins("x", List.of(TS), row(ts(1))).toBuilder()
                .setHeader(RequestHeader.newBuilder().setDbname("greptime-mydb")).build();
        stub.handle(r);
        assertEquals(1, server.rowCount("mydb", "x"));
        refused(() -> stub.handle(r.toBuilder().setHeader(RequestHeader.newBuilder().setDbname("nodb")).build()),
                Status.Code.INVALID_ARGUMENT, "1004");
    }

    // ---- auth on Handle ----

    static GreptimeRequest withAuth(GreptimeRequest r, String user, String pass) {
        return r.toBuilder().setHeader(r.getHeader().toBuilder().setAuthorization(AuthHeader.newBuilder()
                .setBasic(Basic.newBuilder().setUsername(user).setPassword(pass)))).build();
    }

    @Test
    void handleAuthCodesAndMetadataCredentialsAreIgnored() {
        restartWithUser();
        GreptimeRequest r = ins("au", List.of(TS), row(ts(1)));
        refused(() -> stub.handle(r), Status.Code.UNAUTHENTICATED, "7003");
        refused(() -> stub.handle(withAuth(r, "u", "bad")), Status.Code.UNAUTHENTICATED, "7002");
        refused(() -> stub.handle(withAuth(r, "who", "p")), Status.Code.NOT_FOUND, "7000");
        Metadata md = new Metadata();
        md.put(Metadata.Key.of("x-greptime-auth", Metadata.ASCII_STRING_MARSHALLER), "Basic dTpw");
        refused(() -> stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md)).handle(r),
                Status.Code.UNAUTHENTICATED, "7003");
        assertEquals(1, stub.handle(withAuth(r, "u", "p")).getAffectedRows().getValue());
        // HealthCheck needs no auth
        HealthCheckGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                .healthCheck(HealthCheckRequest.getDefaultInstance());
    }

    // ---- HandleRequests ----

    @Test
    void handleRequestsSumsAffectedRowsAndStopsAtTheFirstFailure() throws Exception {
        CompletableFuture<GreptimeResponse> f = new CompletableFuture<>();
        StreamObserver<GreptimeRequest> in = GreptimeDatabaseGrpc.newStub(channel).handleRequests(AnswerFuture.completing(f));
        in.onNext(ins("hr", List.of(TS), row(ts(1)), row(ts(2))));
        in.onNext(ins("hr", List.of(TS), row(ts(3))));
        in.onCompleted();
        assertEquals(3, f.get(60, TimeUnit.SECONDS).getAffectedRows().getValue());

        CompletableFuture<GreptimeResponse> g = new CompletableFuture<>();
        in = GreptimeDatabaseGrpc.newStub(channel).handleRequests(AnswerFuture.completing(g));
        in.onNext(ins("hr", List.of(TS), row(ts(4))));
        in.onNext(ins("hr", List.of(TS), row(NULL)));
        in.onCompleted();
        Exception e = assertThrows(Exception.class, () -> g.get(60, TimeUnit.SECONDS));
        assertEquals(Status.Code.INVALID_ARGUMENT, Status.fromThrowable(e.getCause()).getCode());
        assertEquals(4, server.rowCount("hr"), "the message before the failure stays committed");
    }

    // ---- DoPut with Arrow's own FlightClient ----

    static Field fld(String n, ArrowType t, boolean nullable) {
        return new Field(n, new FieldType(nullable, t, null), null);
    }

    static final ArrowType MS = new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.MILLISECOND, null);

    /** Puts batches (one per metadata string, one row each) and returns every PutResult's app_metadata as JSON. */
    List<JsonObject> put(String table, Schema schema, List<String> metadata, java.util.function.BiConsumer<VectorSchemaRoot, Integer> fill)
            throws Exception {
        List<JsonObject> answers = new ArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        try (BufferAllocator alloc = new RootAllocator();
             FlightClient client = FlightClient.builder(alloc, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
             VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc)) {
            FlightClient.ClientStreamListener s = client.startPut(FlightDescriptor.path(table), root,
                    new FlightClient.PutListener() {
                        @Override
                        public void getResult() {
                        }

                        @Override
                        public void onNext(PutResult val) {
                            ArrowBuf b = val.getApplicationMetadata();
                            byte[] bytes = new byte[(int) b.readableBytes()];
                            b.getBytes(0, bytes);
                            synchronized (answers) {
                                answers.add(JsonParser.parseString(new String(bytes, StandardCharsets.UTF_8)).getAsJsonObject());
                            }
                        }

                        @Override
                        public void onError(Throwable t) {
                            done.completeExceptionally(t);
                        }

                        @Override
                        public void onCompleted() {
                            done.complete(null);
                        }
                    });
            for (int i = 0; i < metadata.size(); i++) {
                root.allocateNew();
                fill.accept(root, i);
                root.setRowCount(1);
                byte[] md = metadata.get(i).getBytes(StandardCharsets.UTF_8);
                ArrowBuf buf = alloc.buffer(Math.max(1, md.length));
                buf.writeBytes(md);
                s.putNext(buf);
            }
            s.completed();
            try {
                done.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw (Exception) e.getCause();
            }
        }
        synchronized (answers) {
            return answers;
        }
    }

    @Test
    void doPutAnswersIdZeroFirstThenEchoesEachRequestId() throws Exception {
        stub.handle(ins("bp", List.of(HOST, cs("v", ColumnDataType.INT64, SemanticType.FIELD), TS), row(str("z"), i64(0), ts(0))));
        Schema schema = new Schema(List.of(fld("host", ArrowType.Utf8.INSTANCE, true), fld("v", new ArrowType.Int(64, true), true),
                fld("ts", MS, false)));
        List<JsonObject> a = put("bp", schema, List.of("{\"request_id\":42}", "{\"request_id\":-3}", "not json"), (root, i) -> {
            ((VarCharVector) root.getVector("host")).setSafe(0, ("h" + i).getBytes(StandardCharsets.UTF_8));
            ((BigIntVector) root.getVector("v")).set(0, i);
            ((TimeStampMilliVector) root.getVector("ts")).set(0, 10 + i);
        });
        assertEquals(4, a.size(), a.toString());
        assertEquals(0, a.get(0).get("request_id").getAsLong());
        assertEquals(0, a.get(0).get("affected_rows").getAsLong());
        assertEquals(42, a.get(1).get("request_id").getAsLong());
        assertEquals(1, a.get(1).get("affected_rows").getAsLong());
        assertTrue(a.get(1).has("elapsed_secs"), a.get(1).toString());
        assertEquals(-3, a.get(2).get("request_id").getAsLong());
        assertEquals(0, a.get(3).get("request_id").getAsLong(), "bad metadata means id 0");
        assertEquals(1, a.get(3).get("affected_rows").getAsLong());
        assertEquals(4, server.rowCount("bp"));
    }

    @Test
    void doPutIgnoresUnknownBatchColumnsAndFillsMissingOnesWithNull() throws Exception {
        stub.handle(ins("bn", List.of(HOST, cs("v", ColumnDataType.INT64, SemanticType.FIELD), TS), row(str("z"), i64(0), ts(0))));
        Schema schema = new Schema(List.of(fld("ts", MS, false), fld("extra", new ArrowType.Int(32, true), true),
                fld("host", ArrowType.Utf8.INSTANCE, true)));
        put("bn", schema, List.of("{\"request_id\":1}"), (root, i) -> {
            ((TimeStampMilliVector) root.getVector("ts")).set(0, 5);
            ((IntVector) root.getVector("extra")).set(0, 9);
            ((VarCharVector) root.getVector("host")).setSafe(0, "q".getBytes(StandardCharsets.UTF_8));
        });
        Map<String, Object> got = server.rows("bn").stream().filter(m -> "q".equals(m.get("host"))).findFirst().orElseThrow();
        assertNull(got.get("v"));
        assertEquals(5L, got.get("ts"));
        assertTrue(!server.schema("bn").toString().contains("extra"), "no column added: " + server.schema("bn"));
    }

    @Test
    void doPutToAMissingTableIsTableNotFound() {
        Schema schema = new Schema(List.of(fld("ts", MS, false)));
        FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> put("ghost", schema,
                List.of("{\"request_id\":1}"), (root, i) -> ((TimeStampMilliVector) root.getVector("ts")).set(0, 1)));
        assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
        assertEquals("Table not found: greptime.public.ghost", e.status().description());
        assertEquals("4001", e.status().metadata().get("x-greptime-err-code"));
    }

    @Test
    void doPutInt32IntoInt64IsUnexpectedWithArrowsWordingAndIndex() throws Exception {
        stub.handle(ins("bi", List.of(HOST, cs("v", ColumnDataType.INT64, SemanticType.FIELD), TS), row(str("z"), i64(0), ts(0))));
        Schema schema = new Schema(List.of(fld("host", ArrowType.Utf8.INSTANCE, true), fld("v", new ArrowType.Int(32, true), true),
                fld("ts", MS, false)));
        FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> put("bi", schema, List.of("{\"request_id\":1}"),
                (root, i) -> {
                    ((VarCharVector) root.getVector("host")).setSafe(0, "a".getBytes(StandardCharsets.UTF_8));
                    ((IntVector) root.getVector("v")).set(0, 1);
                    ((TimeStampMilliVector) root.getVector("ts")).set(0, 1);
                }));
        assertEquals(FlightStatusCode.INTERNAL, e.status().code());
        assertEquals("1002", e.status().metadata().get("x-greptime-err-code"));
        assertEquals("Failed to create RecordBatch from vectors: Invalid argument error: column types must match schema"
                + " types, expected Int64 but found Int32 at column index 1", e.status().description());
        assertEquals(1, server.rowCount("bi"));
    }

    // ---- HTTP SQL ----

    HttpResponse<String> sql(String q, String auth) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + server.httpEndpoint() + "/v1/sql?db=public"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(q, StandardCharsets.UTF_8)));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonObject firstOutput(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
        return JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonArray("output").get(0).getAsJsonObject();
    }

    @Test
    void httpDdlThenGrpcWritesThenQueries() throws Exception {
        firstOutput(sql("CREATE TABLE IF NOT EXISTS m (host STRING, v BIGINT, ts TIMESTAMP(3) NOT NULL, TIME INDEX (ts),"
                + " PRIMARY KEY (host)) ENGINE=mito WITH (ttl='7d', append_mode='false')", null));
        assertEquals("7days", server.tableOptions("public", "m").get("ttl"));
        stub.handle(ins("m", List.of(HOST, cs("v", ColumnDataType.INT64, SemanticType.FIELD), TS),
                row(str("a"), i64(1), ts(1)), row(str("a"), i64(5), ts(2)), row(str("b"), i64(7), ts(1))));
        JsonObject q = firstOutput(sql("SELECT host, max(v) AS mv FROM public.m GROUP BY host ORDER BY host", null));
        assertEquals("[[\"a\",5],[\"b\",7]]", q.getAsJsonObject("records").getAsJsonArray("rows").toString());
        assertEquals(2, q.getAsJsonObject("records").get("total_rows").getAsInt());
        JsonObject desc = firstOutput(sql("DESC TABLE m", null));
        assertTrue(desc.toString().contains("\"host\"") && desc.toString().contains("PRI"), desc.toString());
        // a second CREATE of the same table without IF NOT EXISTS: TableAlreadyExists 4000
        HttpResponse<String> again = sql("CREATE TABLE m (ts TIMESTAMP TIME INDEX)", null);
        assertEquals("4000", again.headers().firstValue("x-greptime-err-code").orElse(null), again.body());
        HttpResponse<String> missing = sql("SELECT * FROM nosuch", null);
        assertEquals("4001", missing.headers().firstValue("x-greptime-err-code").orElse(null), missing.body());
        assertEquals(4001, JsonParser.parseString(missing.body()).getAsJsonObject().get("code").getAsInt());
    }

    /** A statement the SQL parser rejects is InvalidSyntax 2000 on the server (src/sql/src/error.rs: Syntax). */
    @Test
    void httpSqlSyntaxErrorIsInvalidSyntax2000() throws Exception {
        HttpResponse<String> syntax = sql("SELEC 1", null);
        assertEquals("2000", syntax.headers().firstValue("x-greptime-err-code").orElse(null), syntax.body());
    }

    /** The real server runs SQL INSERT over HTTP; scripts seed tables that way. */
    @Test
    void httpSqlInsertWritesRows() throws Exception {
        firstOutput(sql("CREATE TABLE si (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY(host))", null));
        HttpResponse<String> r = sql("INSERT INTO si (host, v, ts) VALUES ('a', 1.5, 1000), ('b', 2.5, 2000)", null);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(2, JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonArray("output").get(0)
                .getAsJsonObject().get("affectedrows").getAsInt(), r.body());
        assertEquals(2, server.rowCount("si"));
    }

    // ---- more Handle cases ----

    @Test
    void typeConflictTextsForMoreTypes() {
        ColumnDataTypeExtension small = ColumnDataTypeExtension.newBuilder()
                .setDecimalType(DecimalTypeExtension.newBuilder().setPrecision(10).setScale(2)).build();
        stub.handle(ins("tc", List.of(cs("u", ColumnDataType.UINT16, SemanticType.FIELD),
                cs("f", ColumnDataType.FLOAT32, SemanticType.FIELD), cs("b", ColumnDataType.BOOLEAN, SemanticType.FIELD),
                cs("dec", ColumnDataType.DECIMAL128, SemanticType.FIELD), cs("t", ColumnDataType.STRING, SemanticType.TAG), TS),
                row(NULL, NULL, NULL, NULL, str("x"), ts(1))));
        String[][] cases = {
            {"u", "UINT32", "UInt16(UInt16Type)"}, {"f", "FLOAT64", "Float32(Float32Type)"},
            {"b", "INT8", "Boolean(BooleanType)"}};
        for (String[] c : cases) {
            ColumnDataType given = ColumnDataType.valueOf(c[1]);
            StatusRuntimeException e = refused(() -> stub.handle(ins("tc", List.of(cs(c[0], given, SemanticType.FIELD), TS),
                    row(NULL, ts(2)))), Status.Code.INVALID_ARGUMENT, "1004");
            assertTrue(e.getStatus().getDescription().endsWith("column " + c[0] + " expect type " + c[2] + ", given: "
                    + c[1] + "(" + given.getNumber() + ")"), e.getStatus().getDescription());
        }
        StatusRuntimeException d = refused(() -> stub.handle(ins("tc", List.of(cs("dec", ColumnDataType.DECIMAL128,
                SemanticType.FIELD).toBuilder().setDatatypeExtension(small).build(), TS), row(NULL, ts(2)))),
                Status.Code.INVALID_ARGUMENT, "1004");
        assertTrue(d.getStatus().getDescription().endsWith(
                "column dec expect type Decimal128(Decimal128Type { precision: 38, scale: 10 }), given: DECIMAL128(30)"),
                d.getStatus().getDescription());
        StatusRuntimeException sem = refused(() -> stub.handle(ins("tc", List.of(cs("t", ColumnDataType.STRING,
                SemanticType.FIELD), TS), row(str("y"), ts(2)))), Status.Code.INVALID_ARGUMENT, "1004");
        assertTrue(sem.getStatus().getDescription().endsWith("column t has semantic type Tag, given: FIELD(1)"),
                sem.getStatus().getDescription());
        assertEquals(1, server.rowCount("tc"));
    }

    @Test
    void aNewColumnIsAddedNullableAndANewTagExtendsThePrimaryKey() {
        stub.handle(ins("ga", List.of(HOST, TS), row(str("a"), ts(1))));
        stub.handle(ins("ga", List.of(HOST, cs("dc", ColumnDataType.STRING, SemanticType.TAG),
                cs("v", ColumnDataType.FLOAT64, SemanticType.FIELD), TS), row(str("a"), str("eu"), f64(2), ts(1))));
        // (a, ts 1) and (a, eu, ts 1) are different series once dc is part of the key
        assertEquals(2, server.rowCount("ga"));
        Map<String, Object> first = server.rows("ga").stream().filter(m -> m.get("dc") == null).findFirst().orElseThrow();
        assertNull(first.get("v"));
    }

    @Test
    void reservedColumnNamesAndInvalidTableNamesAreRefused() {
        refused(() -> stub.handle(ins("rz", List.of(cs("__sequence", ColumnDataType.INT64, SemanticType.FIELD), TS),
                row(i64(1), ts(1)))), Status.Code.INVALID_ARGUMENT, "1004");
        refused(() -> stub.handle(ins("bad name", List.of(TS), row(ts(1)))), Status.Code.INVALID_ARGUMENT, "1004");
        refused(() -> stub.handle(ins("9lives", List.of(TS), row(ts(1)))), Status.Code.INVALID_ARGUMENT, "1004");
        assertEquals(List.of(), server.tables());
    }

    @Test
    void aTableNeedsExactlyOneTimestampColumn() {
        refused(() -> stub.handle(ins("nt", List.of(HOST), row(str("a")))), Status.Code.INVALID_ARGUMENT, "1004");
        assertEquals(List.of(), server.tables());
    }

    // ---- more DoPut cases ----

    @Test
    void doPutWithABatchlessStreamAnswersOnlyTheInitialIdZero() throws Exception {
        stub.handle(ins("be", List.of(TS), row(ts(1))));
        List<JsonObject> a = put("be", new Schema(List.of(fld("ts", MS, false))), List.of(), (root, i) -> { });
        assertEquals(1, a.size(), a.toString());
        assertEquals(0, a.get(0).get("request_id").getAsLong());
    }

    @Test
    void doPutWithTwoPathElementsIsRefused() throws Exception {
        stub.handle(ins("b2", List.of(TS), row(ts(1))));
        try (BufferAllocator alloc = new RootAllocator();
             FlightClient client = FlightClient.builder(alloc, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
             VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(fld("ts", MS, false))), alloc)) {
            org.apache.arrow.flight.SyncPutListener l = new org.apache.arrow.flight.SyncPutListener();
            FlightClient.ClientStreamListener s = client.startPut(FlightDescriptor.path("public", "b2"), root, l);
            root.allocateNew();
            ((TimeStampMilliVector) root.getVector("ts")).set(0, 2);
            root.setRowCount(1);
            s.putNext();
            s.completed();
            FlightRuntimeException e = assertThrows(FlightRuntimeException.class, s::getResult);
            // Arrow's client maps gRPC FAILED_PRECONDITION to INVALID_ARGUMENT too
            assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code(), e.status().toString());
            l.close();
        }
        assertEquals(1, server.rowCount("b2"));
    }

    // ---- more HTTP cases ----

    @Test
    void httpDescribeTableHasTheServersColumns() throws Exception {
        firstOutput(sql("CREATE TABLE dd (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY(host))", null));
        JsonObject out = firstOutput(sql("DESC TABLE dd", null)).getAsJsonObject("records");
        List<String> names = new ArrayList<>();
        out.getAsJsonObject("schema").getAsJsonArray("column_schemas").forEach(c -> names.add(c.getAsJsonObject()
                .get("name").getAsString()));
        // GreptimeTeam/docs reference/sql/describe_table.md
        assertEquals(List.of("Column", "Type", "Key", "Null", "Default", "Semantic Type"), names);
        com.google.gson.JsonArray rows = out.getAsJsonArray("rows");
        assertEquals("[\"host\",\"String\",\"PRI\",\"YES\",\"\",\"TAG\"]", rows.get(0).toString());
        assertEquals("v", rows.get(1).getAsJsonArray().get(0).getAsString());
        assertEquals("Float64", rows.get(1).getAsJsonArray().get(1).getAsString());
        assertEquals("FIELD", rows.get(1).getAsJsonArray().get(5).getAsString());
        assertEquals("TimestampMillisecond", rows.get(2).getAsJsonArray().get(1).getAsString());
        assertEquals("NO", rows.get(2).getAsJsonArray().get(3).getAsString());
        assertEquals("TIMESTAMP", rows.get(2).getAsJsonArray().get(5).getAsString());
    }

    /**
     * GreptimeDB's sqlness expectations (tests/cases/standalone/common/create/create.result):
     * {@code CREATE TABLE integers (i BIGINT)} is {@code Error: 2000(InvalidSyntax), Missing time index constraint}.
     */
    @Test
    void httpCreateTableWithoutTimeIndexIsInvalidSyntax2000() throws Exception {
        HttpResponse<String> noIndex = sql("CREATE TABLE integers (i BIGINT)", null);
        assertEquals("2000", noIndex.headers().firstValue("x-greptime-err-code").orElse(null), noIndex.body());
        assertEquals(List.of(), server.tables());
    }

    /** Same sqlness file: {@code CREATE TABLE integers (i INT TIME INDEX)} is 1004(InvalidArguments). */
    @Test
    void httpCreateTableWithAnIntTimeIndexIsInvalidArguments() throws Exception {
        HttpResponse<String> intIndex = sql("CREATE TABLE integers (i INT TIME INDEX)", null);
        assertEquals("1004", intIndex.headers().firstValue("x-greptime-err-code").orElse(null), intIndex.body());
        assertEquals(List.of(), server.tables());
    }

    @Test
    void httpShowTablesAndCountStarColumnNames() throws Exception {
        stub.handle(ins("st", List.of(TS), row(ts(1)), row(ts(2))));
        JsonObject show = firstOutput(sql("SHOW TABLES", null)).getAsJsonObject("records");
        assertEquals("Tables", show.getAsJsonObject("schema").getAsJsonArray("column_schemas").get(0).getAsJsonObject()
                .get("name").getAsString());
        assertEquals("[[\"st\"]]", show.getAsJsonArray("rows").toString());
        JsonObject count = firstOutput(sql("SELECT count(*) FROM st", null)).getAsJsonObject("records");
        assertEquals("count(*)", count.getAsJsonObject("schema").getAsJsonArray("column_schemas").get(0).getAsJsonObject()
                .get("name").getAsString());
        assertEquals("Int64", count.getAsJsonObject("schema").getAsJsonArray("column_schemas").get(0).getAsJsonObject()
                .get("data_type").getAsString());
    }

    // ---- database routing through catalog/schema, DoPut headers ----

    @Test
    void catalogAndSchemaAreUsedLowercasedWhenDbnameIsEmpty() {
        server.createDatabase("mydb");
        GreptimeRequest r = ins("cs", List.of(TS), row(ts(1))).toBuilder()
                .setHeader(RequestHeader.newBuilder().setCatalog("GREPTIME").setSchema("MyDb")).build();
        stub.handle(r);
        assertEquals(1, server.rowCount("mydb", "cs"));
    }

    List<JsonObject> putWithHeaders(String table, Map<String, String> headers) throws Exception {
        List<JsonObject> answers = new ArrayList<>();
        try (BufferAllocator alloc = new RootAllocator();
             FlightClient client = FlightClient.builder(alloc, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
             VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(fld("ts", MS, false))), alloc)) {
            org.apache.arrow.flight.FlightCallHeaders h = new org.apache.arrow.flight.FlightCallHeaders();
            headers.forEach(h::insert);
            org.apache.arrow.flight.SyncPutListener l = new org.apache.arrow.flight.SyncPutListener();
            FlightClient.ClientStreamListener s = client.startPut(FlightDescriptor.path(table), root, l,
                    new org.apache.arrow.flight.HeaderCallOption(h));
            root.allocateNew();
            ((TimeStampMilliVector) root.getVector("ts")).set(0, 99);
            root.setRowCount(1);
            byte[] md = "{\"request_id\":5}".getBytes(StandardCharsets.UTF_8);
            ArrowBuf buf = alloc.buffer(md.length);
            buf.writeBytes(md);
            s.putNext(buf);
            s.completed();
            s.getResult();
            PutResult pr;
            while ((pr = l.poll(5, TimeUnit.SECONDS)) != null) {
                try (PutResult one = pr) {
                    ArrowBuf b = one.getApplicationMetadata();
                    byte[] bytes = new byte[(int) b.readableBytes()];
                    b.getBytes(0, bytes);
                    answers.add(JsonParser.parseString(new String(bytes, StandardCharsets.UTF_8)).getAsJsonObject());
                }
            }
            l.close();
        }
        return answers;
    }

    @Test
    void doPutAcceptsBareBase64CredentialsAndACatalogDashSchemaDbName() throws Exception {
        restartWithUser();
        server.createDatabase("mydb");
        stub.handle(withAuth(ins("bb", List.of(TS), row(ts(1))).toBuilder()
                .setHeader(RequestHeader.newBuilder().setDbname("mydb")).build(), "u", "p"));
        String bare = java.util.Base64.getEncoder().encodeToString("u:p".getBytes(StandardCharsets.UTF_8));
        putWithHeaders("bb", Map.of("x-greptime-auth", bare, "x-greptime-db-name", "greptime-mydb"));
        assertEquals(2, server.rowCount("mydb", "bb"));
    }

    @Test
    void doPutIgnoresRequestHeaderStyleDbAndHints() throws Exception {
        // DoPut reads only x-greptime-db-name; with none it writes to public, and hints never create a table there.
        stub.handle(ins("hp", List.of(TS), row(ts(1))));
        putWithHeaders("hp", Map.of("x-greptime-hints", "ttl=1d,append_mode=true"));
        assertEquals(2, server.rowCount("hp"));
        assertNull(server.tableOptions("public", "hp").get("ttl"));
    }

    @Test
    void doPutDecimalPrecisionAndLargeUtf8MismatchesUseArrowsDebugNames() throws Exception {
        stub.handle(ins("bd", List.of(cs("dec", ColumnDataType.DECIMAL128, SemanticType.FIELD),
                cs("s", ColumnDataType.STRING, SemanticType.FIELD), TS), row(NULL, NULL, ts(1))));
        Schema dec = new Schema(List.of(fld("dec", new ArrowType.Decimal(10, 2, 128), true), fld("ts", MS, false)));
        FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> put("bd", dec, List.of("{\"request_id\":1}"),
                (root, i) -> ((TimeStampMilliVector) root.getVector("ts")).set(0, 2)));
        assertEquals("Failed to create RecordBatch from vectors: Invalid argument error: column types must match schema"
                + " types, expected Decimal128(38, 10) but found Decimal128(10, 2) at column index 0", e.status().description());
        Schema large = new Schema(List.of(fld("s", ArrowType.LargeUtf8.INSTANCE, true), fld("ts", MS, false)));
        FlightRuntimeException l = assertThrows(FlightRuntimeException.class, () -> put("bd", large, List.of("{\"request_id\":1}"),
                (root, i) -> ((TimeStampMilliVector) root.getVector("ts")).set(0, 2)));
        assertEquals("Failed to create RecordBatch from vectors: Invalid argument error: column types must match schema"
                + " types, expected Utf8 but found LargeUtf8 at column index 1", l.status().description());
        assertEquals(1, server.rowCount("bd"));
    }

    // ---- JSON and VECTOR columns (src/operator/src/req_convert/common.rs in GreptimeTeam/greptimedb 1.2) ----

    /**
     * {@code encode_string_to_jsonb_binary}: a JSON column's value that is not {@code string_value} (binary, int,
     * ...) fails with {@code UnexpectedSnafu { violated: "Expected to value data to be a string." }}: 1002 INTERNAL,
     * exactly as a json_value does.
     */
    @Test
    void aJsonColumnRefusesEveryNonStringValueAsUnexpected1002() {
        ColumnSchema j = cs("j", ColumnDataType.JSON, SemanticType.FIELD).toBuilder().setDatatypeExtension(
                ColumnDataTypeExtension.newBuilder().setJsonType(dev.sluice.internal.wire.JsonTypeExtension.JSON_BINARY)).build();
        stub.handle(ins("js", List.of(j, TS), row(str("{\"a\":1}"), ts(1))));
        for (Value v : List.of(Value.newBuilder().setBinaryValue(ByteString.copyFromUtf8("{}")).build(), i64(5))) {
            StatusRuntimeException e = refused(() -> stub.handle(ins("js", List.of(j, TS), row(v, ts(2)))),
                    Status.Code.INTERNAL, "1002");
            assertEquals("Unexpected, violated: Expected to value data to be a string.", e.getStatus().getDescription());
        }
        assertEquals(1, server.rowCount("js"));
    }

    /** A VECTOR column: datatype 32 with {@code datatype_extension.vector_type} (field 3) = {dim (1)}. */
    static ColumnSchema vector(String name, int dim) {
        ColumnDataTypeExtension ext = ColumnDataTypeExtension.newBuilder().setUnknownFields(
                com.google.protobuf.UnknownFieldSet.newBuilder().addField(3, com.google.protobuf.UnknownFieldSet.Field
                        .newBuilder().addLengthDelimited(com.google.protobuf.UnknownFieldSet.newBuilder()
                                .addField(1, com.google.protobuf.UnknownFieldSet.Field.newBuilder().addVarint(dim).build())
                                .build().toByteString()).build()).build()).build();
        return cs(name, ColumnDataType.VECTOR, SemanticType.FIELD).toBuilder().setDatatypeExtension(ext).build();
    }

    static Value floats(float... f) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(f.length * 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (float x : f) {
            b.putFloat(x);
        }
        return Value.newBuilder().setBinaryValue(ByteString.copyFrom(b.array())).build();
    }

    /** The server creates VECTOR(dim) columns from a write and stores dim little-endian f32s (validate_vector_col). */
    @Test
    void aVectorColumnIsCreatedFromAWrite() {
        assertEquals(1, affected(ins("vec", List.of(vector("emb", 2), TS), row(floats(1f, 2f), ts(1)))));
        assertEquals(1, server.rowCount("vec"));
    }

    /** {@code validate_vector_col}: "Expecting 8 bytes of data for vector column, but got 4." (InvalidInsertRequest, 1004). */
    @Test
    void aVectorValueOfTheWrongLengthIsRefusedWithTheServersReason() {
        StatusRuntimeException e = refused(() -> stub.handle(ins("vec2", List.of(vector("emb", 2), TS),
                row(floats(1f), ts(1)))), Status.Code.INVALID_ARGUMENT, "1004");
        assertEquals("Invalid InsertRequest, reason: Expecting 8 bytes of data for vector column, but got 4.",
                e.getStatus().getDescription());
    }

    /** {@code push_column_to_rows}: "Expecting 3 rows of data for column 'ts', but got 1." (InvalidInsertRequest, 1004). */
    @Test
    void aColumnWiseRowCountMismatchIsWordedAsTheServer() {
        GreptimeRequest r = GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setInserts(dev.sluice.internal.wire.InsertRequests.newBuilder().addInserts(dev.sluice.internal.wire.InsertRequest
                        .newBuilder().setTableName("cr").setRowCount(3)
                        .addColumns(dev.sluice.internal.wire.Column.newBuilder().setColumnName("host")
                                .setDatatype(ColumnDataType.STRING).setSemanticType(SemanticType.TAG)
                                .setValues(dev.sluice.internal.wire.Column.Values.newBuilder().addStringValues("a")
                                        .addStringValues("b").addStringValues("c")))
                        .addColumns(dev.sluice.internal.wire.Column.newBuilder().setColumnName("ts")
                                .setDatatype(ColumnDataType.TIMESTAMP_MILLISECOND).setSemanticType(SemanticType.TIMESTAMP)
                                .setValues(dev.sluice.internal.wire.Column.Values.newBuilder().addTimestampMillisecondValues(1)))))
                .build();
        StatusRuntimeException e = refused(() -> stub.handle(r), Status.Code.INVALID_ARGUMENT, "1004");
        assertEquals("Invalid InsertRequest, reason: Expecting 3 rows of data for column 'ts', but got 1.",
                e.getStatus().getDescription());
    }

    // ---- auth details (src/servers/src/grpc/context_auth.rs, src/servers/src/error.rs) ----

    /** {@code auth()}: a token scheme is {@code UnsupportedAuthScheme}, mapped to InvalidAuthHeader 7004 (UNAUTHENTICATED). */
    @Test
    void aTokenAuthHeaderOnHandleIsInvalidAuthHeader7004() {
        restartWithUser();
        GreptimeRequest r = ins("tk", List.of(TS), row(ts(1)));
        GreptimeRequest token = r.toBuilder().setHeader(r.getHeader().toBuilder().setAuthorization(AuthHeader.newBuilder()
                .setToken(dev.sluice.internal.wire.Token.newBuilder().setToken("abc")))).build();
        refused(() -> stub.handle(token), Status.Code.UNAUTHENTICATED, "7004");
        assertTrue(!server.tables().contains("tk"));
    }

    /** {@code check_auth} reads {@code x-greptime-auth} first, then the standard {@code authorization} header. */
    @Test
    void doPutAcceptsTheStandardAuthorizationHeader() throws Exception {
        restartWithUser();
        stub.handle(withAuth(ins("sa", List.of(TS), row(ts(1))), "u", "p"));
        String basic = "Basic " + java.util.Base64.getEncoder().encodeToString("u:p".getBytes(StandardCharsets.UTF_8));
        putWithHeaders("sa", Map.of("authorization", basic));
        assertEquals(2, server.rowCount("sa"));
    }

    /** HTTP: an unsupported scheme and undecodable base64 are both InvalidAuthHeader 7004 (401). */
    @Test
    void httpMalformedAuthorizationIsInvalidAuthHeader7004() throws Exception {
        restartWithUser();
        for (String auth : List.of("Digest dXNlcm5hbWU6cGFzc3dvcmQ=", "Basic %%%not-base64%%%")) {
            HttpResponse<String> r = sql("SHOW TABLES", auth);
            assertEquals(401, r.statusCode(), auth + " -> " + r.body());
            assertEquals("7004", r.headers().firstValue("x-greptime-err-code").orElse(null), auth + " -> " + r.body());
        }
    }

    // ---- HTTP column types, per-key hint headers ----

    /**
     * The HTTP output names each column's type with the server's {@code ConcreteDataType::name()}
     * (src/datatypes/src/types/*.rs; decimal_type.rs: {@code Decimal(<p>, <s>)}).
     */
    @Test
    void httpSelectNamesColumnTypesAsTheServersDataTypes() throws Exception {
        ColumnDataTypeExtension dec = ColumnDataTypeExtension.newBuilder()
                .setDecimalType(DecimalTypeExtension.newBuilder().setPrecision(10).setScale(2)).build();
        stub.handle(ins("ty", List.of(cs("b", ColumnDataType.BOOLEAN, SemanticType.FIELD),
                cs("i8", ColumnDataType.INT8, SemanticType.FIELD), cs("u64", ColumnDataType.UINT64, SemanticType.FIELD),
                cs("f32", ColumnDataType.FLOAT32, SemanticType.FIELD), cs("s", ColumnDataType.STRING, SemanticType.FIELD),
                cs("bin", ColumnDataType.BINARY, SemanticType.FIELD), cs("d", ColumnDataType.DATE, SemanticType.FIELD),
                cs("tns", ColumnDataType.TIMESTAMP_NANOSECOND, SemanticType.FIELD),
                cs("tm", ColumnDataType.TIME_MICROSECOND, SemanticType.FIELD),
                cs("dec", ColumnDataType.DECIMAL128, SemanticType.FIELD).toBuilder().setDatatypeExtension(dec).build(), TS),
                row(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ts(1))));
        JsonObject out = firstOutput(sql("SELECT b, i8, u64, f32, s, bin, d, tns, tm, dec, ts FROM ty", null));
        List<String> types = new ArrayList<>();
        out.getAsJsonObject("records").getAsJsonObject("schema").getAsJsonArray("column_schemas")
                .forEach(c -> types.add(c.getAsJsonObject().get("data_type").getAsString()));
        assertEquals(List.of("Boolean", "Int8", "UInt64", "Float32", "String", "Binary", "Date", "TimestampNanosecond",
                "TimeMicrosecond", "Decimal(10, 2)", "TimestampMillisecond"), types);
    }

    @Test
    void perKeyHintHeadersWorkAndTheCombinedHeaderWins() {
        Metadata md = new Metadata();
        md.put(Metadata.Key.of("x-greptime-hint-ttl", Metadata.ASCII_STRING_MARSHALLER), "2d");
        stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md)).handle(ins("pk1", List.of(TS), row(ts(1))));
        assertEquals("2days", server.tableOptions("public", "pk1").get("ttl"));
        md.put(Metadata.Key.of("x-greptime-hints", Metadata.ASCII_STRING_MARSHALLER), "ttl=3d");
        stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md)).handle(ins("pk2", List.of(TS), row(ts(1))));
        assertEquals("3days", server.tableOptions("public", "pk2").get("ttl"));
    }

    // ---- db string parsing (src/common/catalog/src/lib.rs parse_optional_catalog_and_schema_from_db_string) ----

    /** Split at the first '-', both parts lowercased; without '-', the whole name lowercased is the schema. */
    @Test
    void dbnamesAreSplitAtTheFirstDashAndLowercased() {
        server.createDatabase("mydb");
        server.createDatabase("my-db");
        stub.handle(ins("lc", List.of(TS), row(ts(1))).toBuilder().setHeader(RequestHeader.newBuilder().setDbname("MYDB")).build());
        stub.handle(ins("lc", List.of(TS), row(ts(2))).toBuilder().setHeader(RequestHeader.newBuilder()
                .setDbname("GREPTIME-MyDb")).build());
        stub.handle(ins("lc", List.of(TS), row(ts(3))).toBuilder().setHeader(RequestHeader.newBuilder()
                .setDbname("greptime-my-db")).build());
        assertEquals(2, server.rowCount("mydb", "lc"));
        assertEquals(1, server.rowCount("my-db", "lc"));
    }

    @Test
    void doPutDbNameHeaderIsLowercasedToo() throws Exception {
        server.createDatabase("mydb");
        stub.handle(ins("dl2", List.of(TS), row(ts(1))).toBuilder().setHeader(RequestHeader.newBuilder().setDbname("mydb")).build());
        putWithHeaders("dl2", Map.of("x-greptime-db-name", "MyDb"));
        assertEquals(2, server.rowCount("mydb", "dl2"));
    }

    /** HTTP {@code ?db=} goes through the same parser: {@code MyDb} is {@code mydb}. */
    @Test
    void httpDbParameterIsLowercased() throws Exception {
        server.createDatabase("mydb");
        stub.handle(ins("hl", List.of(TS), row(ts(1))).toBuilder().setHeader(RequestHeader.newBuilder().setDbname("mydb")).build());
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://" + server.httpEndpoint() + "/v1/sql?db=MyDb"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode("SELECT count(*) FROM hl",
                        StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("[[1]]", firstOutput(r).getAsJsonObject("records").getAsJsonArray("rows").toString());
    }

    /**
     * src/mito2/src/request.rs {@code check_missing_column}: a delete lacking a tag or the time index is
     * InvalidRequest (1004) with the reason {@code delete requests need column <c>}. (No frontend check with
     * another wording was found in src/operator; the code 1004 agrees already, only the text differs.)
     */
    @Test
    void aDeleteMissingTheTimeIndexIsWordedAsMito() {
        stub.handle(ins("dw", List.of(HOST, TS), row(str("a"), ts(1))));
        StatusRuntimeException e = refused(() -> stub.handle(del("dw", List.of(HOST), row(str("a")))),
                Status.Code.INVALID_ARGUMENT, "1004");
        assertTrue(e.getStatus().getDescription().endsWith("reason: delete requests need column ts"),
                e.getStatus().getDescription());
    }
}
