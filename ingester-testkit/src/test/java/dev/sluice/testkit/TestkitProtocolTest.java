package dev.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.StatusCode;
import dev.sluice.internal.wire.AuthHeader;
import dev.sluice.internal.wire.Basic;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.GreptimeResponse;
import dev.sluice.internal.wire.HealthCheckGrpc;
import dev.sluice.internal.wire.HealthCheckRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.RowInsertRequest;
import dev.sluice.internal.wire.RowInsertRequests;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.internal.wire.Token;
import dev.sluice.internal.wire.Value;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Speaks raw protocol messages to the testkit, as any GreptimeDB client would. */
@ExtendWith(GreptimeTestkitExtension.class)
class TestkitProtocolTest {
    GreptimeTestServer server;
    ManagedChannel channel;
    GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub stub;

    @BeforeEach
    void connect(GreptimeTestServer server) {
        this.server = server;
        server.clear();
        channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
        stub = GreptimeDatabaseGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void disconnect() {
        channel.shutdownNow();
    }

    static ColumnSchema col(String name, ColumnDataType type, SemanticType semantic) {
        return ColumnSchema.newBuilder().setColumnName(name).setDatatype(type).setSemanticType(semantic).build();
    }

    static final ColumnSchema HOST = col("host", ColumnDataType.STRING, SemanticType.TAG);
    static final ColumnSchema VAL = col("val", ColumnDataType.FLOAT64, SemanticType.FIELD);
    static final ColumnSchema TS = col("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP);

    static Row row(Value... values) {
        return Row.newBuilder().addAllValues(List.of(values)).build();
    }

    static Value s(String v) {
        return Value.newBuilder().setStringValue(v).build();
    }

    static Value f(double v) {
        return Value.newBuilder().setF64Value(v).build();
    }

    static Value ts(long v) {
        return Value.newBuilder().setTimestampMillisecondValue(v).build();
    }

    static final Value NULL = Value.getDefaultInstance();

    static GreptimeRequest insert(String table, List<ColumnSchema> schema, Row... rows) {
        return GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setRowInserts(RowInsertRequests.newBuilder().addInserts(RowInsertRequest.newBuilder()
                        .setTableName(table).setRows(Rows.newBuilder().addAllSchema(schema).addAllRows(List.of(rows)))))
                .build();
    }

    StatusRuntimeException fails(GreptimeRequest req, int code) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.handle(req));
        Metadata trailers = e.getTrailers();
        assertNotNull(trailers);
        assertEquals(Integer.toString(code), trailers.get(Metadata.Key.of("x-greptime-err-code", Metadata.ASCII_STRING_MARSHALLER)));
        assertEquals(StatusCode.of(code).grpcCode().value(), e.getStatus().getCode().value());
        assertNotNull(trailers.get(Metadata.Key.of("x-greptime-err-retry-hint", Metadata.ASCII_STRING_MARSHALLER)));
        return e;
    }

    @Test
    void insertAnswersAffectedRows() {
        GreptimeResponse r = stub.handle(insert("t", List.of(HOST, VAL, TS), row(s("a"), f(1), ts(1)), row(s("b"), NULL, ts(2))));
        assertEquals(2, r.getAffectedRows().getValue());
        assertEquals(2, server.rowCount("t"));
    }

    @Test
    void nullTimeIndexIsInvalidArgumentsAfterTheTableIsCreated() {
        fails(insert("t", List.of(HOST, VAL, TS), row(s("a"), f(1), NULL)), 1004);
        assertEquals(List.of("t"), server.tables(), "the server creates the table before it reads a value");
        assertEquals(0, server.rowCount("t"));
        assertEquals(List.of("host", "val", "ts"), server.schema("t").columns().stream()
                .map(dev.sluice.data.TableSchema.Column::name).toList());
    }

    @Test
    void rowWidthMismatchIsInvalidArguments() {
        fails(insert("t", List.of(HOST, VAL, TS), row(s("a"), ts(1))), 1004);
    }

    @Test
    void valueCaseMustMatchTheColumnType() {
        StatusRuntimeException e = fails(insert("t", List.of(HOST, VAL, TS),
                row(s("a"), Value.newBuilder().setI64Value(1).build(), ts(1))), 1004);
        assertTrue(e.getStatus().getDescription().contains("val"), e.getStatus().getDescription());
    }

    @Test
    void twoTimestampColumnsAndDuplicateColumnsAreRejected() {
        fails(insert("t", List.of(HOST, TS, col("ts2", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP)),
                row(s("a"), ts(1), ts(2))), 1004);
        fails(insert("t", List.of(HOST, HOST, TS), row(s("a"), s("a"), ts(1))), 1004);
    }

    @Test
    void missingTimeIndexOnCreateAndOnExistingTableIsRejected() {
        fails(insert("t", List.of(HOST, VAL), row(s("a"), f(1))), 1004);
        stub.handle(insert("t", List.of(HOST, VAL, TS), row(s("a"), f(1), ts(1))));
        fails(insert("t", List.of(HOST, VAL), row(s("a"), f(1))), 1004);
    }

    @Test
    void reservedColumnsAndBadTableNamesAreRejected() {
        fails(insert("t", List.of(col("__op_type", ColumnDataType.INT32, SemanticType.FIELD), TS),
                row(Value.newBuilder().setI32Value(1).build(), ts(1))), 1004);
        fails(insert("9 bad", List.of(TS), row(ts(1))), 1004);
    }

    @Test
    void invalidJsonIsRejected() {
        ColumnSchema j = ColumnSchema.newBuilder(col("j", ColumnDataType.JSON, SemanticType.FIELD)).build();
        fails(insert("t", List.of(j, TS), row(s("{not json"), ts(1))), 1004);
        stub.handle(insert("t", List.of(j, TS), row(s("{\"ok\":1}"), ts(1))));
    }

    @Test
    void hintValueForAutoCreateMustBeExact() {
        Metadata md = new Metadata();
        md.put(Metadata.Key.of("x-greptime-hints", Metadata.ASCII_STRING_MARSHALLER), "auto_create_table=yes");
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () ->
                stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
                        .handle(insert("t", List.of(TS), row(ts(1)))));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    }

    @Test
    void combinedHintsHeaderWinsOverSingleHintHeaders() {
        Metadata md = new Metadata();
        md.put(Metadata.Key.of("x-greptime-hint-ttl", Metadata.ASCII_STRING_MARSHALLER), "1d");
        md.put(Metadata.Key.of("x-greptime-hints", Metadata.ASCII_STRING_MARSHALLER), " ttl = 7d , append_mode=true");
        stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md)).handle(insert("t", List.of(TS), row(ts(1))));
        assertEquals("7days", server.tableOptions("public", "t").get("ttl"), "stored normalised, as the server prints it");
        assertEquals("true", server.tableOptions("public", "t").get("append_mode"));
    }

    @Test
    void handleRequestsSumsRowsAndStopsAtTheFirstFailure() throws Exception {
        GreptimeDatabaseGrpc.GreptimeDatabaseStub async = GreptimeDatabaseGrpc.newStub(channel);
        CompletableFuture<GreptimeResponse> ok = new CompletableFuture<>();
        StreamObserver<GreptimeRequest> in = async.handleRequests(observer(ok));
        in.onNext(insert("t", List.of(HOST, TS), row(s("a"), ts(1))));
        in.onNext(insert("t", List.of(HOST, TS), row(s("b"), ts(2)), row(s("c"), ts(3))));
        in.onCompleted();
        assertEquals(3, ok.get(10, TimeUnit.SECONDS).getAffectedRows().getValue());

        CompletableFuture<GreptimeResponse> bad = new CompletableFuture<>();
        in = async.handleRequests(observer(bad));
        in.onNext(insert("t", List.of(HOST, TS), row(s("d"), ts(4))));
        in.onNext(insert("t", List.of(HOST, TS), row(s("e"), NULL)));
        in.onNext(insert("t", List.of(HOST, TS), row(s("f"), ts(6))));
        in.onCompleted();
        Exception e = assertThrows(Exception.class, () -> bad.get(10, TimeUnit.SECONDS));
        assertEquals(Status.Code.INVALID_ARGUMENT, Status.fromThrowable(e.getCause()).getCode());
        assertEquals(4, server.rowCount("t"), "the message before the failure stays committed, the one after is not read");
    }

    static StreamObserver<GreptimeResponse> observer(CompletableFuture<GreptimeResponse> f) {
        return new StreamObserver<>() {
            GreptimeResponse last;

            @Override
            public void onNext(GreptimeResponse value) {
                last = value;
            }

            @Override
            public void onError(Throwable t) {
                f.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                f.complete(last);
            }
        };
    }

    @Test
    void healthCheckNeedsNoAuthAndTokensAreUnsupported() {
        try (GreptimeTestServer secured = GreptimeTestServer.builder().user("u", "p").start()) {
            ManagedChannel ch = NettyChannelBuilder.forTarget(secured.endpoint()).usePlaintext().build();
            try {
                HealthCheckGrpc.newBlockingStub(ch).healthCheck(HealthCheckRequest.getDefaultInstance());
                GreptimeRequest token = insert("t", List.of(TS), row(ts(1))).toBuilder()
                        .setHeader(RequestHeader.newBuilder().setDbname("public")
                                .setAuthorization(AuthHeader.newBuilder().setToken(Token.newBuilder().setToken("x")))).build();
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                        () -> GreptimeDatabaseGrpc.newBlockingStub(ch).handle(token));
                assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
                GreptimeRequest basic = insert("t", List.of(TS), row(ts(1))).toBuilder()
                        .setHeader(RequestHeader.newBuilder().setSchema("PUBLIC")
                                .setAuthorization(AuthHeader.newBuilder().setBasic(Basic.newBuilder().setUsername("u").setPassword("p")))).build();
                assertEquals(1, GreptimeDatabaseGrpc.newBlockingStub(ch).handle(basic).getAffectedRows().getValue());
            } finally {
                ch.shutdownNow();
            }
        }
    }

    @Test
    void failEveryNthRequestInjectsRetryableErrors() {
        server.faults().failEvery(3, StatusCode.RegionBusy, "busy");
        int failed = 0;
        for (int i = 0; i < 9; i++) {
            try {
                stub.handle(insert("t", List.of(TS), row(ts(i))));
            } catch (StatusRuntimeException e) {
                failed++;
                assertEquals("retryable", e.getTrailers().get(Metadata.Key.of("x-greptime-err-retry-hint", Metadata.ASCII_STRING_MARSHALLER)));
            }
        }
        assertEquals(3, failed);
        assertEquals(6, server.rowCount("t"));
        assertEquals(3, server.faults().injectedCount());
    }

    @Test
    void aRefusedValueFailsEveryRequestHoldingItAndStoresNothingOfIt() {
        server.faults().refuseValue("host", "bad", StatusCode.InvalidArguments, "column host: value refused");
        fails(insert("t", List.of(HOST, TS), row(s("good"), ts(1)), row(s("bad"), ts(2))), 1004);
        stub.handle(insert("t", List.of(HOST, TS), row(s("good"), ts(1))));
        server.faults().refuseValue(null, null, null, null);
        stub.handle(insert("t", List.of(HOST, TS), row(s("bad"), ts(2))));
        assertEquals(2, server.rowCount("t"));
    }

    @Test
    void restartKeepsDataAndPort() throws Exception {
        stub.handle(insert("t", List.of(TS), row(ts(1))));
        int port = server.port();
        server.restart();
        assertEquals(port, server.port());
        assertEquals(1, server.rowCount("t"));
        // A call racing the old connection's GOAWAY may fail UNAVAILABLE, as with a real server: a client retries.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                stub.withDeadlineAfter(10, TimeUnit.SECONDS).handle(insert("t", List.of(TS), row(ts(2))));
                break;
            } catch (io.grpc.StatusRuntimeException e) {
                if (e.getStatus().getCode() != io.grpc.Status.Code.UNAVAILABLE || System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
        assertEquals(2, server.rowCount("t"));
        RecordedRequest first = server.takeRequest(Duration.ofSeconds(1));
        assertEquals("insert", first.kind());
        assertEquals(List.of("t"), first.tables());
    }

    @Test
    void unsupportedDdlAnswersUnsupported() {
        fails(GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setDdl(dev.sluice.internal.wire.DdlRequest.getDefaultInstance()).build(), 1001);
    }
}
