package dev.sluice.testkit;

import static dev.sluice.testkit.TestkitProtocolTest.HOST;
import static dev.sluice.testkit.TestkitProtocolTest.TS;
import static dev.sluice.testkit.TestkitProtocolTest.VAL;
import static dev.sluice.testkit.TestkitProtocolTest.col;
import static dev.sluice.testkit.TestkitProtocolTest.f;
import static dev.sluice.testkit.TestkitProtocolTest.insert;
import static dev.sluice.testkit.TestkitProtocolTest.row;
import static dev.sluice.testkit.TestkitProtocolTest.s;
import static dev.sluice.testkit.TestkitProtocolTest.ts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sluice.internal.wire.Column;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnDataTypeExtension;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.Decimal128;
import dev.sluice.internal.wire.DecimalTypeExtension;
import dev.sluice.internal.wire.DeleteRequest;
import dev.sluice.internal.wire.DeleteRequests;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.InsertRequest;
import dev.sluice.internal.wire.InsertRequests;
import dev.sluice.internal.wire.JsonValue;
import dev.sluice.internal.wire.QueryRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.RowDeleteRequest;
import dev.sluice.internal.wire.RowDeleteRequests;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.internal.wire.Value;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The testkit answers as a real GreptimeDB (1.2) does wherever a client can tell the difference; wording follows
 * the server's own texts.
 */
class ServerAnswersTest {
    static final Metadata.Key<String> ERR_CODE = Metadata.Key.of("x-greptime-err-code", Metadata.ASCII_STRING_MARSHALLER);

    GreptimeTestServer server;
    ManagedChannel channel;
    GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub stub;

    @BeforeEach
    void start() {
        server = GreptimeTestServer.builder().maxMessageBytes(64 * 1024).start();
        channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
        stub = GreptimeDatabaseGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() {
        channel.shutdownNow();
        server.close();
    }

    StatusRuntimeException fails(GreptimeRequest req, Status.Code grpc, Integer code) {
        return fails(stub, req, grpc, code);
    }

    static StatusRuntimeException fails(GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub stub, GreptimeRequest req,
                                        Status.Code grpc, Integer code) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.handle(req));
        assertEquals(grpc, e.getStatus().getCode(), e.getStatus().toString());
        String trailer = e.getTrailers() == null ? null : e.getTrailers().get(ERR_CODE);
        assertEquals(code == null ? null : code.toString(), trailer, "x-greptime-err-code");
        return e;
    }

    static String description(StatusRuntimeException e) {
        return e.getStatus().getDescription();
    }

    GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub withHints(String hints) {
        Metadata md = new Metadata();
        md.put(Metadata.Key.of("x-greptime-hints", Metadata.ASCII_STRING_MARSHALLER), hints);
        return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
    }

    static Value i64(long v) {
        return Value.newBuilder().setI64Value(v).build();
    }

    // ---- 2: json_value ----

    @Test
    void jsonValueInAJsonColumnIsRefusedAsUnexpectedNotStoredAsNull() {
        ColumnSchema j = col("j", ColumnDataType.JSON, SemanticType.FIELD);
        Value json = Value.newBuilder().setJsonValue(JsonValue.newBuilder().setStr("x")).build();
        StatusRuntimeException e = fails(insert("t", List.of(j, TS), row(json, ts(1))), Status.Code.INTERNAL, 1002);
        assertEquals("Unexpected, violated: Expected to value data to be a string.", description(e));
        assertEquals(0, server.rowCount("t"));
    }

    // ---- 3: column-wise requests and query ----

    static Column column(String name, ColumnDataType type, SemanticType semantic, Column.Values values, byte[] nullMask) {
        return Column.newBuilder().setColumnName(name).setDatatype(type).setSemanticType(semantic).setValues(values)
                .setNullMask(ByteString.copyFrom(nullMask)).build();
    }

    @Test
    void columnWiseInsertsAndDeletesAreServed() {
        GreptimeRequest ins = GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setInserts(InsertRequests.newBuilder().addInserts(InsertRequest.newBuilder().setTableName("cw").setRowCount(3)
                        .addColumns(column("host", ColumnDataType.STRING, SemanticType.TAG,
                                Column.Values.newBuilder().addStringValues("a").addStringValues("b").addStringValues("c").build(), new byte[0]))
                        // row 1 (second) is NULL: bit 1 of the mask
                        .addColumns(column("val", ColumnDataType.FLOAT64, SemanticType.FIELD,
                                Column.Values.newBuilder().addF64Values(1.5).addF64Values(3.5).build(), new byte[] {0b010}))
                        .addColumns(column("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP,
                                Column.Values.newBuilder().addTimestampMillisecondValues(1).addTimestampMillisecondValues(2)
                                        .addTimestampMillisecondValues(3).build(), new byte[0]))))
                .build();
        assertEquals(3, stub.handle(ins).getAffectedRows().getValue());
        List<Map<String, Object>> rows = server.rows("cw");
        assertEquals(3, rows.size());
        assertEquals(1.5, rows.get(0).get("val"));
        assertNull(rows.get(1).get("val"));
        assertEquals(3.5, rows.get(2).get("val"));
        assertEquals("c", rows.get(2).get("host"));

        GreptimeRequest del = GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setDeletes(DeleteRequests.newBuilder().addDeletes(DeleteRequest.newBuilder().setTableName("cw").setRowCount(1)
                        .addKeyColumns(column("host", ColumnDataType.STRING, SemanticType.TAG,
                                Column.Values.newBuilder().addStringValues("b").build(), new byte[0]))
                        .addKeyColumns(column("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP,
                                Column.Values.newBuilder().addTimestampMillisecondValues(2).build(), new byte[0]))))
                .build();
        assertEquals(1, stub.handle(del).getAffectedRows().getValue());
        assertEquals(2, server.rowCount("cw"));
    }

    @Test
    void aGrpcQueryIsUnimplementedWithoutACodeTrailer() {
        GreptimeRequest q = GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setQuery(QueryRequest.newBuilder().setSql("select 1")).build();
        StatusRuntimeException e = fails(q, Status.Code.UNIMPLEMENTED, null);
        assertEquals("GreptimeDatabase::Handle for query", description(e));
    }

    @Test
    void anEmptyRequestIsAnInvalidQuery() {
        StatusRuntimeException e = fails(GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder()
                .setDbname("public")).build(), Status.Code.INVALID_ARGUMENT, 1004);
        assertEquals("Invalid query: Expecting non-empty GreptimeRequest.", description(e));
    }

    // ---- 9: gRPC DDL ----

    static GreptimeRequest ddl(dev.sluice.internal.wire.DdlRequest.Builder ddl) {
        return GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public")).setDdl(ddl).build();
    }

    @Test
    void alterAddColumnDropAndTruncateAreServedOverGrpc() {
        stub.handle(insert("a", List.of(HOST, TS), row(s("x"), ts(1))));
        dev.sluice.internal.wire.ColumnDef region = dev.sluice.internal.wire.ColumnDef.newBuilder().setName("region")
                .setDataType(ColumnDataType.STRING).setSemanticType(SemanticType.TAG).setIsNullable(true).build();
        dev.sluice.internal.wire.ColumnDef cpu = dev.sluice.internal.wire.ColumnDef.newBuilder().setName("cpu")
                .setDataType(ColumnDataType.FLOAT64).setSemanticType(SemanticType.FIELD).setIsNullable(true).build();
        dev.sluice.internal.wire.AlterTableExpr.Builder alter = dev.sluice.internal.wire.AlterTableExpr.newBuilder()
                .setTableName("a").setAddColumns(dev.sluice.internal.wire.AddColumns.newBuilder()
                        .addAddColumns(dev.sluice.internal.wire.AddColumn.newBuilder().setColumnDef(region))
                        .addAddColumns(dev.sluice.internal.wire.AddColumn.newBuilder().setColumnDef(cpu)));
        assertEquals(0, stub.handle(ddl(dev.sluice.internal.wire.DdlRequest.newBuilder().setAlterTable(alter)))
                .getAffectedRows().getValue());
        assertEquals(List.of("host", "ts", "region", "cpu"), server.schema("a").columns().stream()
                .map(dev.sluice.data.TableSchema.Column::name).toList());
        assertNull(server.rows("a").get(0).get("region"), "older rows read NULL in an added column");
        StatusRuntimeException again = fails(ddl(dev.sluice.internal.wire.DdlRequest.newBuilder().setAlterTable(alter)),
                Status.Code.ALREADY_EXISTS, 4003);
        assertEquals("Column region already exists in table a", description(again));

        stub.handle(insert("a", List.of(HOST, col("region", ColumnDataType.STRING, SemanticType.TAG), TS),
                row(s("x"), s("eu"), ts(1))));
        assertEquals(2, server.rowCount("a"), "the added tag is part of the key");
        stub.handle(ddl(dev.sluice.internal.wire.DdlRequest.newBuilder().setTruncateTable(
                dev.sluice.internal.wire.TruncateTableExpr.newBuilder().setTableName("a"))));
        assertEquals(0, server.rowCount("a"));
        assertEquals(List.of("a"), server.tables());

        stub.handle(ddl(dev.sluice.internal.wire.DdlRequest.newBuilder().setDropTable(
                dev.sluice.internal.wire.DropTableExpr.newBuilder().setTableName("a"))));
        assertEquals(List.of(), server.tables());
        StatusRuntimeException missing = fails(ddl(dev.sluice.internal.wire.DdlRequest.newBuilder().setDropTable(
                dev.sluice.internal.wire.DropTableExpr.newBuilder().setTableName("a"))), Status.Code.NOT_FOUND, 4001);
        assertEquals("Table not found: greptime.public.a", description(missing));
        stub.handle(ddl(dev.sluice.internal.wire.DdlRequest.newBuilder().setDropTable(
                dev.sluice.internal.wire.DropTableExpr.newBuilder().setTableName("a").setDropIfExists(true))));
    }

    // ---- 4: delete counts ----

    @Test
    void aDeleteAnswersTheRowsSentAbsentKeysIncluded() {
        stub.handle(insert("d", List.of(HOST, VAL, TS), row(s("a"), f(1), ts(1)), row(s("b"), f(2), ts(2))));
        GreptimeRequest del = GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setRowDeletes(RowDeleteRequests.newBuilder().addDeletes(RowDeleteRequest.newBuilder().setTableName("d")
                        .setRows(Rows.newBuilder().addSchema(HOST).addSchema(TS)
                                .addRows(row(s("a"), ts(1))).addRows(row(s("b"), ts(2))).addRows(row(s("zz"), ts(9))))))
                .build();
        assertEquals(3, stub.handle(del).getAffectedRows().getValue(), "2 present + 1 absent");
        assertEquals(0, server.rowCount("d"));
    }

    // ---- 5: hints ----

    @Test
    void anUnparsableTtlIsRefusedAndCreatesNothing() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> withHints("ttl=sevendays").handle(insert("h", List.of(TS), row(ts(1)))));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals("1004", e.getTrailers().get(ERR_CODE));
        assertEquals("Failed to parse table option, key: ttl, value: sevendays", description(e));
        assertEquals(List.of(), server.tables());
    }

    @Test
    void ttlIsStoredNormalisedAsTheServerPrintsIt() {
        withHints("ttl=7d").handle(insert("h1", List.of(TS), row(ts(1))));
        withHints("ttl=90m").handle(insert("h2", List.of(TS), row(ts(1))));
        withHints("ttl=FOREVER").handle(insert("h3", List.of(TS), row(ts(1))));
        withHints("ttl=1h 1s").handle(insert("h4", List.of(TS), row(ts(1))));
        assertEquals("7days", server.tableOptions("public", "h1").get("ttl"));
        assertEquals("1h 30m", server.tableOptions("public", "h2").get("ttl"));
        assertEquals("forever", server.tableOptions("public", "h3").get("ttl"));
        assertEquals("1h 1s", server.tableOptions("public", "h4").get("ttl"));
    }

    @Test
    void autoCreateTableFalseAnswersAsTheServer() {
        StatusRuntimeException missing = assertThrows(StatusRuntimeException.class,
                () -> withHints("auto_create_table=false").handle(insert("t", List.of(TS), row(ts(1)))));
        assertEquals(Status.Code.INVALID_ARGUMENT, missing.getStatus().getCode());
        assertEquals("1004", missing.getTrailers().get(ERR_CODE));
        assertEquals("Invalid InsertRequest, reason: Table `t` does not exist, and `auto_create_table` hint is disabled",
                description(missing));

        stub.handle(insert("t", List.of(TS), row(ts(1))));
        StatusRuntimeException newCol = assertThrows(StatusRuntimeException.class,
                () -> withHints("auto_create_table=false").handle(insert("t", List.of(col("newcol", ColumnDataType.FLOAT64,
                        SemanticType.FIELD), TS), row(f(1), ts(2)))));
        assertEquals(Status.Code.INVALID_ARGUMENT, newCol.getStatus().getCode());
        assertEquals("1004", newCol.getTrailers().get(ERR_CODE));
        assertEquals("Invalid request to region 4398046511104(1024, 0), reason: unknown columns: [\"newcol\"]",
                description(newCol));
    }

    // ---- 7: error texts ----

    @Test
    void typeConflictsAreWordedAsTheServerWordsThem() {
        ColumnSchema str = col("s", ColumnDataType.STRING, SemanticType.FIELD);
        stub.handle(insert("t", List.of(str, TS), row(s("x"), ts(1))));
        StatusRuntimeException e = fails(insert("t", List.of(col("s", ColumnDataType.INT64, SemanticType.FIELD), TS),
                row(i64(1), ts(2))), Status.Code.INVALID_ARGUMENT, 1004);
        assertEquals("Invalid request to region 4398046511104(1024, 0), reason: column s expect type"
                + " String(StringType { size_type: Utf8 }), given: INT64(4)", description(e));

        e = fails(insert("t", List.of(str, col("ts", ColumnDataType.TIMESTAMP_SECOND, SemanticType.TIMESTAMP)),
                row(s("x"), Value.newBuilder().setTimestampSecondValue(1).build())), Status.Code.INVALID_ARGUMENT, 1004);
        assertEquals("Invalid request to region 4398046511104(1024, 0), reason: column ts expect type"
                + " Timestamp(Millisecond(TimestampMillisecondType)), given: TIMESTAMP_SECOND(15)", description(e));

        e = fails(insert("t", List.of(col("s", ColumnDataType.STRING, SemanticType.TAG), TS), row(s("x"), ts(2))),
                Status.Code.INVALID_ARGUMENT, 1004);
        assertEquals("Invalid request to region 4398046511104(1024, 0), reason: column s has semantic type Field,"
                + " given: TAG(0)", description(e));

        ColumnSchema dec = ColumnSchema.newBuilder(col("d", ColumnDataType.DECIMAL128, SemanticType.FIELD)).build();
        stub.handle(insert("t2", List.of(dec, TS), row(Value.newBuilder().setDecimal128Value(Decimal128.newBuilder()
                .setLo(12345)).build(), ts(1))));
        assertEquals(new BigDecimal("0.0000012345"), server.rows("t2").get(0).get("d"), "no extension means (38, 10)");
        ColumnSchema dec2 = ColumnSchema.newBuilder(dec).setDatatypeExtension(ColumnDataTypeExtension.newBuilder()
                .setDecimalType(DecimalTypeExtension.newBuilder().setPrecision(10).setScale(2))).build();
        e = fails(insert("t2", List.of(dec2, TS), row(Value.newBuilder().setDecimal128Value(Decimal128.newBuilder()
                .setLo(1)).build(), ts(2))), Status.Code.INVALID_ARGUMENT, 1004);
        assertEquals("Invalid request to region 4402341478400(1025, 0), reason: column d expect type"
                + " Decimal128(Decimal128Type { precision: 38, scale: 10 }), given: DECIMAL128(30)", description(e));
    }

    @Test
    void duplicateTimestampAndInvalidJsonAreWordedAsTheServerWordsThem() {
        StatusRuntimeException e = fails(insert("t", List.of(col("a", ColumnDataType.TIMESTAMP_MILLISECOND,
                SemanticType.TIMESTAMP), col("b", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP)),
                row(ts(1), ts(2))), Status.Code.INVALID_ARGUMENT, 1004);
        assertEquals("Duplicated timestamp column in gRPC requests, exists a, duplicated: b", description(e));
        e = fails(insert("t", List.of(col("j", ColumnDataType.JSON, SemanticType.FIELD), TS), row(s("{not json"), ts(1))),
                Status.Code.INVALID_ARGUMENT, 1004);
        assertEquals("Invalid json text: {not json", description(e));
    }

    // ---- 8: small integers and the message limit ----

    @Test
    void outOfRangeSmallIntegersWrapAsTheServersCastDoes() {
        GreptimeRequest req = insert("t", List.of(col("i8", ColumnDataType.INT8, SemanticType.FIELD),
                col("i16", ColumnDataType.INT16, SemanticType.FIELD), col("u8", ColumnDataType.UINT8, SemanticType.FIELD),
                col("u16", ColumnDataType.UINT16, SemanticType.FIELD), TS),
                row(Value.newBuilder().setI8Value(1002).build(), Value.newBuilder().setI16Value(40_000).build(),
                        Value.newBuilder().setU8Value(300).build(), Value.newBuilder().setU16Value(70_000).build(), ts(1)));
        stub.handle(req);
        Map<String, Object> r = server.rows("t").get(0);
        assertEquals(-22L, r.get("i8"));
        assertEquals(-25_536L, r.get("i16"));
        assertEquals(44L, r.get("u8"));
        assertEquals(4_464L, r.get("u16"));
    }

    @Test
    void aMessageOverTheLimitIsOutOfRangeWithoutTrailers() {
        Value big = s("x".repeat(70 * 1024));
        StatusRuntimeException e = fails(insert("t", List.of(col("s", ColumnDataType.STRING, SemanticType.FIELD), TS),
                row(big, ts(1))), Status.Code.OUT_OF_RANGE, null);
        assertTrue(description(e).startsWith("Error, decoded message length too large: found "), description(e));
        assertTrue(description(e).endsWith(" bytes, the limit is: 65536 bytes"), description(e));
        assertEquals(List.of(), server.tables());
        assertNotNull(stub.handle(insert("t", List.of(TS), row(ts(1)))), "smaller messages still pass");
    }
}
