package dev.sluice.testkit.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sluice.internal.wire.AuthHeader;
import dev.sluice.internal.wire.Basic;
import dev.sluice.internal.wire.Column;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnDataTypeExtension;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.Decimal128;
import dev.sluice.internal.wire.DecimalTypeExtension;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.InsertRequest;
import dev.sluice.internal.wire.InsertRequests;
import dev.sluice.internal.wire.JsonTypeExtension;
import dev.sluice.internal.wire.JsonValue;
import dev.sluice.internal.wire.QueryRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.RowDeleteRequest;
import dev.sluice.internal.wire.RowDeleteRequests;
import dev.sluice.internal.wire.RowInsertRequest;
import dev.sluice.internal.wire.RowInsertRequests;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.internal.wire.Value;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One list of protocol cases, run unchanged against the testkit and against a real GreptimeDB: each speaks raw
 * wire messages (generated protobuf classes, Arrow's own Flight client) and asserts what the server answers and
 * stores. Every server is configured with one user, so every request carries credentials unless a case is
 * about auth. Table names carry a per-run suffix, so a case can run against a long-lived server.
 */
final class ConformanceCases {
    private ConformanceCases() {
    }

    /** A case: a name, what it asserts, and its body. */
    record Case(String name, String asserts, Body body) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A case's body. */
    interface Body {
        void run(Ctx ctx) throws Exception;
    }

    /** What a case works with. */
    static final class Ctx {
        final Target target;
        final ManagedChannel channel;
        final String suffix;

        Ctx(Target target, ManagedChannel channel, String suffix) {
            this.target = target;
            this.channel = channel;
            this.suffix = suffix;
        }

        String t(String base) {
            return base + "_" + suffix;
        }

        RequestHeader header() {
            return RequestHeader.newBuilder().setDbname("public").setAuthorization(AuthHeader.newBuilder()
                    .setBasic(Basic.newBuilder().setUsername(target.user()).setPassword(target.password()))).build();
        }

        GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub stub() {
            return GreptimeDatabaseGrpc.newBlockingStub(channel).withDeadlineAfter(60, java.util.concurrent.TimeUnit.SECONDS);
        }

        GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub stub(String hints) {
            Metadata md = new Metadata();
            md.put(Metadata.Key.of("x-greptime-hints", Metadata.ASCII_STRING_MARSHALLER), hints);
            return stub().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
        }

        GreptimeRequest insert(String table, List<ColumnSchema> schema, Row... rows) {
            return GreptimeRequest.newBuilder().setHeader(header()).setRowInserts(RowInsertRequests.newBuilder()
                    .addInserts(RowInsertRequest.newBuilder().setTableName(table)
                            .setRows(Rows.newBuilder().addAllSchema(schema).addAllRows(Arrays.asList(rows))))).build();
        }

        GreptimeRequest delete(String table, List<ColumnSchema> schema, Row... rows) {
            return GreptimeRequest.newBuilder().setHeader(header()).setRowDeletes(RowDeleteRequests.newBuilder()
                    .addDeletes(RowDeleteRequest.newBuilder().setTableName(table)
                            .setRows(Rows.newBuilder().addAllSchema(schema).addAllRows(Arrays.asList(rows))))).build();
        }

        int ok(GreptimeRequest req) {
            return stub().handle(req).getAffectedRows().getValue();
        }

        /** Asserts a failure and returns its description. */
        String fails(GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub stub, GreptimeRequest req, Status.Code grpc, Integer code) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.handle(req));
            assertEquals(grpc, e.getStatus().getCode(), e.getStatus().toString());
            Metadata trailers = e.getTrailers();
            String got = trailers == null ? null
                    : trailers.get(Metadata.Key.of("x-greptime-err-code", Metadata.ASCII_STRING_MARSHALLER));
            assertEquals(code == null ? null : code.toString(), got, "x-greptime-err-code of " + e.getStatus());
            return e.getStatus().getDescription();
        }

        String fails(GreptimeRequest req, Status.Code grpc, Integer code) {
            return fails(stub(), req, grpc, code);
        }

        List<List<String>> select(String table, String columns, String orderBy) throws Exception {
            return target.select(table, List.of(columns.split(",")), orderBy);
        }

        /** One DoPut stream of one batch; throws the stream's error. */
        void put(String db, String auth, String table, Schema schema, Consumer<VectorSchemaRoot> fill) throws Exception {
            try (BufferAllocator allocator = new RootAllocator();
                 FlightClient client = FlightClient.builder(allocator, Location.forGrpcInsecure(target.host(),
                         target.grpcPort())).build();
                 VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                 SyncPutListener results = new SyncPutListener()) {
                FlightCallHeaders headers = new FlightCallHeaders();
                headers.insert("x-greptime-db-name", db);
                if (auth != null) {
                    headers.insert("x-greptime-auth", auth);
                }
                FlightClient.ClientStreamListener stream = client.startPut(FlightDescriptor.path(table), root, results,
                        new HeaderCallOption(headers));
                root.allocateNew();
                fill.accept(root);
                root.setRowCount(1);
                byte[] md = "{\"request_id\":1}".getBytes(StandardCharsets.UTF_8);
                ArrowBuf buf = allocator.buffer(md.length);
                buf.writeBytes(md);
                stream.putNext(buf);
                stream.completed();
                stream.getResult();
            }
        }

        String basicAuth() {
            return "Basic " + Base64.getEncoder().encodeToString((target.user() + ":" + target.password())
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    static ColumnSchema col(String name, ColumnDataType type, SemanticType semantic) {
        return ColumnSchema.newBuilder().setColumnName(name).setDatatype(type).setSemanticType(semantic).build();
    }

    static final ColumnSchema HOST = col("host", ColumnDataType.STRING, SemanticType.TAG);
    static final ColumnSchema V = col("v", ColumnDataType.FLOAT64, SemanticType.FIELD);
    static final ColumnSchema TS = col("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP);
    static final Value NULL = Value.getDefaultInstance();

    static Row row(Value... v) {
        return Row.newBuilder().addAllValues(Arrays.asList(v)).build();
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

    static final long T0 = 1_700_000_000_000L;
    /** The region part of the server's region errors; ids differ between servers. */
    static final String REGION = "Invalid request to region \\d+\\(\\d+, 0\\), reason: ";

    static Field field(String name, ArrowType type, boolean nullable) {
        return new Field(name, new FieldType(nullable, type, null), null);
    }

    static String code(FlightRuntimeException e) {
        return e.status().metadata().containsKey("x-greptime-err-code") ? e.status().metadata().get("x-greptime-err-code") : null;
    }

    /** @return every case, in a fixed order */
    /**
     * Every case as a dynamic test against one target.
     *
     * @param target the server
     * @param channel a channel to its gRPC port
     * @param suffix appended to every table name, so a long-lived server can be used again
     * @return the tests
     */
    static java.util.stream.Stream<org.junit.jupiter.api.DynamicTest> run(Target target, ManagedChannel channel,
                                                                         String suffix) {
        return all().stream().map(c -> org.junit.jupiter.api.DynamicTest.dynamicTest(c.name() + ": " + c.asserts(),
                () -> c.body().run(new Ctx(target, channel, suffix))));
    }

    static List<Case> all() {
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("insertCreatesTheTable", "a row insert into a missing table creates it and answers the rows",
                c -> {
                    assertEquals(2, c.ok(c.insert(c.t("ins"), List.of(HOST, V, TS), row(s("a"), f(1.5), ts(T0)),
                            row(s("b"), NULL, ts(T0 + 1)))));
                    assertEquals(List.of(List.of("a", "1.5"), Arrays.asList("b", null)), c.select(c.t("ins"), "host,v", "ts"));
                }));
        cases.add(new Case("lastWriteWins", "same tags and time index overwrite; different keys do not", c -> {
            c.ok(c.insert(c.t("lww"), List.of(HOST, V, TS), row(s("a"), f(1.5), ts(T0)), row(s("b"), f(2.5), ts(T0))));
            c.ok(c.insert(c.t("lww"), List.of(HOST, V, TS), row(s("a"), f(3.5), ts(T0))));
            assertEquals(List.of(List.of("a", "3.5"), List.of("b", "2.5")), c.select(c.t("lww"), "host,v", "host"));
        }));
        cases.add(new Case("appendModeKeepsDuplicates", "append_mode=true keeps every row of a resent key", c -> {
            GreptimeRequest r = c.insert(c.t("app"), List.of(HOST, V, TS), row(s("a"), f(1.5), ts(T0)));
            c.stub("append_mode=true").handle(r);
            c.stub("append_mode=true").handle(r);
            assertEquals(2, c.select(c.t("app"), "host,v", "ts").size());
        }));
        cases.add(new Case("mergeModeLastNonNull", "merge_mode=last_non_null keeps an older value where the newer is NULL",
                c -> {
                    c.stub("merge_mode=last_non_null").handle(c.insert(c.t("mrg"), List.of(HOST, V, TS), row(s("a"), f(1.5), ts(T0))));
                    c.ok(c.insert(c.t("mrg"), List.of(HOST, V, TS), row(s("a"), NULL, ts(T0))));
                    assertEquals(List.of(List.of("a", "1.5")), c.select(c.t("mrg"), "host,v", "ts"));
                }));
        cases.add(new Case("deleteCountsRowsSent", "a delete answers the rows sent (absent keys included) and removes the present ones",
                c -> {
                    c.ok(c.insert(c.t("del"), List.of(HOST, V, TS), row(s("a"), f(1.5), ts(T0)), row(s("b"), f(2.5), ts(T0))));
                    assertEquals(3, c.ok(c.delete(c.t("del"), List.of(HOST, TS), row(s("a"), ts(T0)), row(s("b"), ts(T0)),
                            row(s("zz"), ts(T0)))));
                    assertEquals(List.of(), c.select(c.t("del"), "host", "ts"));
                }));
        cases.add(new Case("deleteFromMissingTable", "a delete on a missing table is 4001 NOT_FOUND", c ->
                c.fails(c.delete(c.t("nodel"), List.of(HOST, TS), row(s("a"), ts(T0))), Status.Code.NOT_FOUND, 4001)));
        cases.add(new Case("typeConflict", "a declared type unlike the table's is 1004, worded by the region", c -> {
            c.ok(c.insert(c.t("tc"), List.of(V, TS), row(f(1.5), ts(T0))));
            String d = c.fails(c.insert(c.t("tc"), List.of(col("v", ColumnDataType.INT64, SemanticType.FIELD), TS),
                    row(Value.newBuilder().setI64Value(1).build(), ts(T0))), Status.Code.INVALID_ARGUMENT, 1004);
            assertTrue(d.matches(REGION + "column v expect type Float64\\(Float64Type\\), given: INT64\\(4\\)"), d);
        }));
        cases.add(new Case("semanticConflict", "a field sent as a tag is 1004, worded by the region", c -> {
            c.ok(c.insert(c.t("sc"), List.of(col("s", ColumnDataType.STRING, SemanticType.FIELD), TS), row(s("x"), ts(T0))));
            String d = c.fails(c.insert(c.t("sc"), List.of(col("s", ColumnDataType.STRING, SemanticType.TAG), TS),
                    row(s("x"), ts(T0))), Status.Code.INVALID_ARGUMENT, 1004);
            assertTrue(d.matches(REGION + "column s has semantic type Field, given: TAG\\(0\\)"), d);
        }));
        cases.add(new Case("duplicateTimestamp", "two TIMESTAMP columns are 1004 naming both", c -> {
            String d = c.fails(c.insert(c.t("dt"), List.of(col("a", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP),
                    col("b", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP)), row(ts(T0), ts(T0))),
                    Status.Code.INVALID_ARGUMENT, 1004);
            assertEquals("Duplicated timestamp column in gRPC requests, exists a, duplicated: b", d);
        }));
        ColumnSchema json = ColumnSchema.newBuilder(col("j", ColumnDataType.JSON, SemanticType.FIELD))
                .setDatatypeExtension(ColumnDataTypeExtension.newBuilder().setJsonType(JsonTypeExtension.JSON_BINARY)).build();
        cases.add(new Case("invalidJson", "JSON text that does not parse is 1004 quoting it", c -> {
            String d = c.fails(c.insert(c.t("ij"), List.of(json, TS), row(s("{not json"), ts(T0))), Status.Code.INVALID_ARGUMENT, 1004);
            assertEquals("Invalid json text: {not json", d);
        }));
        cases.add(new Case("jsonValueRefused", "json_value (Value 42) into a JSON column is INTERNAL 1002 (1.2)", c -> {
            String d = c.fails(c.insert(c.t("jv"), List.of(json, TS), row(Value.newBuilder()
                    .setJsonValue(JsonValue.newBuilder().setInt(1)).build(), ts(T0))), Status.Code.INTERNAL, 1002);
            assertEquals("Unexpected, violated: Expected to value data to be a string.", d);
        }));
        cases.add(new Case("smallIntegersWrap", "an i8_value out of range is narrowed with wrap-around (1002 -> -22)", c -> {
            c.ok(c.insert(c.t("si"), List.of(col("i", ColumnDataType.INT8, SemanticType.FIELD), TS),
                    row(Value.newBuilder().setI8Value(1002).build(), ts(T0))));
            assertEquals(List.of(List.of("-22")), c.select(c.t("si"), "i", "ts"));
        }));
        cases.add(new Case("decimalDefaultsTo38x10", "a decimal without extension is (38,10); another precision is 1004", c -> {
            ColumnSchema d = col("d", ColumnDataType.DECIMAL128, SemanticType.FIELD);
            c.ok(c.insert(c.t("dec"), List.of(d, TS), row(Value.newBuilder().setDecimal128Value(Decimal128.newBuilder()
                    .setLo(15_000_000_000L)).build(), ts(T0))));
            ColumnSchema d2 = ColumnSchema.newBuilder(d).setDatatypeExtension(ColumnDataTypeExtension.newBuilder()
                    .setDecimalType(DecimalTypeExtension.newBuilder().setPrecision(10).setScale(2))).build();
            String msg = c.fails(c.insert(c.t("dec"), List.of(d2, TS), row(Value.newBuilder().setDecimal128Value(
                    Decimal128.newBuilder().setLo(1)).build(), ts(T0))), Status.Code.INVALID_ARGUMENT, 1004);
            assertTrue(msg.matches(REGION + "column d expect type Decimal128\\(Decimal128Type \\{ precision: 38, scale: 10 \\}\\),"
                    + " given: DECIMAL128\\(30\\)"), msg);
        }));
        cases.add(new Case("unknownDatabase", "an insert into a missing database is 1004", c -> {
            GreptimeRequest r = c.insert(c.t("ud"), List.of(TS), row(ts(T0))).toBuilder()
                    .setHeader(c.header().toBuilder().setDbname("nodb_" + c.suffix)).build();
            String d = c.fails(r, Status.Code.INVALID_ARGUMENT, 1004);
            assertTrue(d.contains("nodb_" + c.suffix), d);
        }));
        cases.add(new Case("badTtl", "an unparsable ttl hint is 1004 and creates nothing", c -> {
            String d = c.fails(c.stub("ttl=sevendays"), c.insert(c.t("bt"), List.of(TS), row(ts(T0))),
                    Status.Code.INVALID_ARGUMENT, 1004);
            assertEquals("Failed to parse table option, key: ttl, value: sevendays", d);
            assertFalse(c.target.exists(c.t("bt")));
        }));
        cases.add(new Case("ttlNormalised", "a ttl hint is stored as the server prints durations (7d -> 7days)", c -> {
            c.stub("ttl=7d").handle(c.insert(c.t("tn"), List.of(TS), row(ts(T0))));
            assertEquals("7days", c.target.tableOption(c.t("tn"), "ttl"));
        }));
        cases.add(new Case("autoCreateFalse", "auto_create_table=false: missing table and new column are 1004", c -> {
            String d = c.fails(c.stub("auto_create_table=false"), c.insert(c.t("ac"), List.of(TS), row(ts(T0))),
                    Status.Code.INVALID_ARGUMENT, 1004);
            assertEquals("Invalid InsertRequest, reason: Table `" + c.t("ac") + "` does not exist, and `auto_create_table`"
                    + " hint is disabled", d);
            c.ok(c.insert(c.t("ac"), List.of(TS), row(ts(T0))));
            d = c.fails(c.stub("auto_create_table=false"), c.insert(c.t("ac"), List.of(V, TS), row(f(1.5), ts(T0))),
                    Status.Code.INVALID_ARGUMENT, 1004);
            assertTrue(d.matches(REGION + "unknown columns: \\[\"v\"\\]"), d);
        }));
        cases.add(new Case("queryUnimplemented", "a gRPC query is UNIMPLEMENTED without a code trailer", c -> {
            String d = c.fails(GreptimeRequest.newBuilder().setHeader(c.header()).setQuery(QueryRequest.newBuilder()
                    .setSql("select 1")).build(), Status.Code.UNIMPLEMENTED, null);
            assertEquals("GreptimeDatabase::Handle for query", d);
        }));
        cases.add(new Case("columnWiseInsert", "column-wise inserts (2) are served, NULLs from the null mask", c -> {
            GreptimeRequest r = GreptimeRequest.newBuilder().setHeader(c.header()).setInserts(InsertRequests.newBuilder()
                    .addInserts(InsertRequest.newBuilder().setTableName(c.t("cw")).setRowCount(2)
                            .addColumns(Column.newBuilder().setColumnName("host").setDatatype(ColumnDataType.STRING)
                                    .setSemanticType(SemanticType.TAG).setValues(Column.Values.newBuilder()
                                            .addStringValues("a").addStringValues("b")))
                            .addColumns(Column.newBuilder().setColumnName("v").setDatatype(ColumnDataType.FLOAT64)
                                    .setSemanticType(SemanticType.FIELD).setNullMask(ByteString.copyFrom(new byte[] {1}))
                                    .setValues(Column.Values.newBuilder().addF64Values(2.5)))
                            .addColumns(Column.newBuilder().setColumnName("ts").setDatatype(ColumnDataType.TIMESTAMP_MILLISECOND)
                                    .setSemanticType(SemanticType.TIMESTAMP).setValues(Column.Values.newBuilder()
                                            .addTimestampMillisecondValues(T0).addTimestampMillisecondValues(T0 + 1)))))
                    .build();
            assertEquals(2, c.ok(r));
            assertEquals(List.of(Arrays.asList("a", null), List.of("b", "2.5")), c.select(c.t("cw"), "host,v", "ts"));
        }));
        cases.add(new Case("everyWritableTypeOverHandle", "one row holding every type a write can create is stored", c -> {
            ColumnSchema dec = ColumnSchema.newBuilder(col("c_dec", ColumnDataType.DECIMAL128, SemanticType.FIELD))
                    .setDatatypeExtension(ColumnDataTypeExtension.newBuilder().setDecimalType(
                            DecimalTypeExtension.newBuilder().setPrecision(20).setScale(4))).build();
            List<ColumnSchema> schema = List.of(col("c_bool", ColumnDataType.BOOLEAN, SemanticType.FIELD),
                    col("c_i8", ColumnDataType.INT8, SemanticType.FIELD), col("c_i16", ColumnDataType.INT16, SemanticType.FIELD),
                    col("c_i32", ColumnDataType.INT32, SemanticType.FIELD), col("c_i64", ColumnDataType.INT64, SemanticType.FIELD),
                    col("c_u8", ColumnDataType.UINT8, SemanticType.FIELD), col("c_u16", ColumnDataType.UINT16, SemanticType.FIELD),
                    col("c_u32", ColumnDataType.UINT32, SemanticType.FIELD), col("c_u64", ColumnDataType.UINT64, SemanticType.FIELD),
                    col("c_f32", ColumnDataType.FLOAT32, SemanticType.FIELD), col("c_f64", ColumnDataType.FLOAT64, SemanticType.FIELD),
                    col("c_bin", ColumnDataType.BINARY, SemanticType.FIELD), col("c_str", ColumnDataType.STRING, SemanticType.FIELD),
                    col("c_date", ColumnDataType.DATE, SemanticType.FIELD),
                    col("c_ts_s", ColumnDataType.TIMESTAMP_SECOND, SemanticType.FIELD),
                    col("c_ts_us", ColumnDataType.TIMESTAMP_MICROSECOND, SemanticType.FIELD),
                    col("c_ts_ns", ColumnDataType.TIMESTAMP_NANOSECOND, SemanticType.FIELD),
                    col("c_t_s", ColumnDataType.TIME_SECOND, SemanticType.FIELD),
                    col("c_t_ms", ColumnDataType.TIME_MILLISECOND, SemanticType.FIELD),
                    col("c_t_us", ColumnDataType.TIME_MICROSECOND, SemanticType.FIELD),
                    col("c_t_ns", ColumnDataType.TIME_NANOSECOND, SemanticType.FIELD), dec, json, TS);
            Row r = row(Value.newBuilder().setBoolValue(true).build(), Value.newBuilder().setI8Value(-8).build(),
                    Value.newBuilder().setI16Value(-16).build(), Value.newBuilder().setI32Value(-32).build(),
                    Value.newBuilder().setI64Value(-64).build(), Value.newBuilder().setU8Value(8).build(),
                    Value.newBuilder().setU16Value(16).build(), Value.newBuilder().setU32Value(32).build(),
                    Value.newBuilder().setU64Value(64).build(), Value.newBuilder().setF32Value(0.5f).build(), f(0.25),
                    Value.newBuilder().setBinaryValue(ByteString.copyFromUtf8("b")).build(), s("text"),
                    Value.newBuilder().setDateValue(19_000).build(), Value.newBuilder().setTimestampSecondValue(1).build(),
                    Value.newBuilder().setTimestampMicrosecondValue(1).build(),
                    Value.newBuilder().setTimestampNanosecondValue(1).build(), Value.newBuilder().setTimeSecondValue(1).build(),
                    Value.newBuilder().setTimeMillisecondValue(1).build(), Value.newBuilder().setTimeMicrosecondValue(1).build(),
                    Value.newBuilder().setTimeNanosecondValue(1).build(),
                    Value.newBuilder().setDecimal128Value(Decimal128.newBuilder().setLo(12_345)).build(), s("{\"a\":1}"), ts(T0));
            assertEquals(1, c.ok(c.insert(c.t("types"), schema, r)));
            assertEquals(List.of(List.of("-8", "-64", "64", "0.25", "text")), c.select(c.t("types"), "c_i8,c_i64,c_u64,c_f64,c_str", "ts"));
        }));
        cases.add(new Case("newColumnIsAdded", "a write with a new column adds it; older rows read NULL there", c -> {
            c.ok(c.insert(c.t("nc"), List.of(HOST, TS), row(s("a"), ts(T0))));
            c.ok(c.insert(c.t("nc"), List.of(HOST, V, TS), row(s("b"), f(1.5), ts(T0))));
            assertEquals(List.of(Arrays.asList("a", null), List.of("b", "1.5")), c.select(c.t("nc"), "host,v", "host"));
        }));
        cases.add(new Case("nullTimeIndex", "a NULL time index is 1004, the table it names created and empty", c -> {
            c.fails(c.insert(c.t("nt"), List.of(HOST, TS), row(s("a"), NULL)), Status.Code.INVALID_ARGUMENT, 1004);
            assertTrue(c.target.exists(c.t("nt")));
            assertEquals(List.of(), c.select(c.t("nt"), "host", "host"));
        }));
        cases.add(new Case("emptyRequest", "a request with no body is an invalid query, 1004", c -> {
            assertEquals("Invalid query: Expecting non-empty GreptimeRequest.", c.fails(GreptimeRequest.newBuilder()
                    .setHeader(c.header()).build(), Status.Code.INVALID_ARGUMENT, 1004));
        }));
        cases.add(new Case("authMissing", "no credentials is 7003 UNAUTHENTICATED", c -> {
            GreptimeRequest r = c.insert(c.t("au"), List.of(TS), row(ts(T0))).toBuilder()
                    .setHeader(RequestHeader.newBuilder().setDbname("public")).build();
            assertEquals("Not found http or grpc authorization header", c.fails(r, Status.Code.UNAUTHENTICATED, 7003));
        }));
        cases.add(new Case("authWrongPassword", "a wrong password is 7002 UNAUTHENTICATED", c -> {
            GreptimeRequest r = c.insert(c.t("au"), List.of(TS), row(ts(T0))).toBuilder().setHeader(RequestHeader.newBuilder()
                    .setDbname("public").setAuthorization(AuthHeader.newBuilder().setBasic(Basic.newBuilder()
                            .setUsername(c.target.user()).setPassword("wrong")))).build();
            c.fails(r, Status.Code.UNAUTHENTICATED, 7002);
        }));
        cases.add(new Case("authUnknownUser", "an unknown user is 7000 NOT_FOUND", c -> {
            GreptimeRequest r = c.insert(c.t("au"), List.of(TS), row(ts(T0))).toBuilder().setHeader(RequestHeader.newBuilder()
                    .setDbname("public").setAuthorization(AuthHeader.newBuilder().setBasic(Basic.newBuilder()
                            .setUsername("nobody").setPassword("x")))).build();
            c.fails(r, Status.Code.NOT_FOUND, 7000);
        }));
        Schema bulk = new Schema(List.of(field("host", ArrowType.Utf8.INSTANCE, true),
                field("v", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true),
                field("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), false)));
        Consumer<VectorSchemaRoot> oneRow = root -> {
            ((VarCharVector) root.getVector("host")).setSafe(0, "h".getBytes(StandardCharsets.UTF_8));
            ((Float8Vector) root.getVector("v")).set(0, 4.5);
            ((TimeStampMilliVector) root.getVector("ts")).set(0, T0);
        };
        cases.add(new Case("bulkIntoExistingTable", "DoPut stores a batch into a table created over Handle", c -> {
            c.ok(c.insert(c.t("bk"), List.of(HOST, V, TS), row(s("a"), f(1.5), ts(T0))));
            c.put("public", c.basicAuth(), c.t("bk"), bulk, oneRow);
            assertEquals(List.of(List.of("a", "1.5"), List.of("h", "4.5")), c.select(c.t("bk"), "host,v", "host"));
        }));
        cases.add(new Case("bulkMissingTable", "DoPut into a missing table is 4001 NOT_FOUND", c -> {
            FlightRuntimeException e = assertThrows(FlightRuntimeException.class,
                    () -> c.put("public", c.basicAuth(), c.t("bm"), bulk, oneRow));
            assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
            assertEquals("Table not found: greptime.public." + c.t("bm"), e.status().description());
        }));
        cases.add(new Case("bulkTypeMismatch", "a DoPut Arrow type unlike the table's is INTERNAL 1002 in arrow's words", c -> {
            c.ok(c.insert(c.t("bt2"), List.of(HOST, V, TS), row(s("a"), f(1.5), ts(T0))));
            Schema wrong = new Schema(List.of(field("host", ArrowType.Utf8.INSTANCE, true),
                    field("v", new ArrowType.Int(64, true), true),
                    field("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), false)));
            FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> c.put("public", c.basicAuth(),
                    c.t("bt2"), wrong, root -> {
                        ((VarCharVector) root.getVector("host")).setSafe(0, "h".getBytes(StandardCharsets.UTF_8));
                        ((BigIntVector) root.getVector("v")).set(0, 4);
                        ((TimeStampMilliVector) root.getVector("ts")).set(0, T0);
                    }));
            assertEquals(FlightStatusCode.INTERNAL, e.status().code());
            assertEquals("1002", code(e));
            assertEquals("Failed to create RecordBatch from vectors: Invalid argument error: column types must match"
                    + " schema types, expected Float64 but found Int64 at column index 1", e.status().description());
        }));
        cases.add(new Case("bulkAuth", "DoPut: wrong password is 'auth failed' without trailer, no credentials 7003", c -> {
            c.ok(c.insert(c.t("ba"), List.of(HOST, V, TS), row(s("a"), f(1.5), ts(T0))));
            String wrong = "Basic " + Base64.getEncoder().encodeToString((c.target.user() + ":wrong").getBytes(StandardCharsets.UTF_8));
            FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> c.put("public", wrong, c.t("ba"), bulk, oneRow));
            assertEquals(FlightStatusCode.UNAUTHENTICATED, e.status().code());
            assertEquals("auth failed", e.status().description());
            assertNull(code(e));
            FlightRuntimeException missing = assertThrows(FlightRuntimeException.class,
                    () -> c.put("public", null, c.t("ba"), bulk, oneRow));
            assertEquals(FlightStatusCode.UNAUTHENTICATED, missing.status().code());
            assertEquals("7003", code(missing));
        }));
        return cases;
    }
}
