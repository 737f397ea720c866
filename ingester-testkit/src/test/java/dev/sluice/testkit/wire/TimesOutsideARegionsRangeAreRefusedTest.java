package dev.sluice.testkit.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.GreptimeResponse;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.Row;
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
import io.grpc.stub.StreamObserver;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TimeStampNanoVector;
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
 * A time whose one-day memtable partition does not fit the time index's unit is refused as GreptimeDB 1.2 refuses
 * it (1004, {@code Partition time range for 9223286400000000000::Nanosecond is out of bound, bucket size: 86400s}
 * for 9223372036854775806 ns; src/mito2/src/memtable/time_partition.rs), on every write path, and the write stores
 * nothing.
 */
@Timeout(120)
class TimesOutsideARegionsRangeAreRefusedTest {
    static final long PAST_THE_LAST_DAY = 9_223_372_036_854_775_806L;
    /** The last nanosecond of the last whole day that fits: its partition ends at 9223286400 s. */
    static final long LAST_FITTING = 9_223_286_399_999_999_999L;
    static final String REASON = "reason: Partition time range for 9223286400000000000::Nanosecond is out of bound,"
            + " bucket size: 86400s";
    static final Metadata.Key<String> CODE = Metadata.Key.of("x-greptime-err-code", Metadata.ASCII_STRING_MARSHALLER);
    static final ColumnSchema TS = ColumnSchema.newBuilder().setColumnName("ts")
            .setDatatype(ColumnDataType.TIMESTAMP_NANOSECOND).setSemanticType(SemanticType.TIMESTAMP).build();

    GreptimeTestServer server;
    ManagedChannel channel;
    GreptimeDatabaseGrpc.GreptimeDatabaseBlockingStub stub;

    @BeforeEach
    void up() {
        server = GreptimeTestServer.builder().httpPort(0).start();
        channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
        stub = GreptimeDatabaseGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    @AfterEach
    void down() {
        channel.shutdownNow();
        server.close();
    }

    static RowInsertRequest rows(String table, long... times) {
        Rows.Builder rows = Rows.newBuilder().addSchema(TS);
        for (long t : times) {
            rows.addRows(Row.newBuilder().addValues(Value.newBuilder().setTimestampNanosecondValue(t)));
        }
        return RowInsertRequest.newBuilder().setTableName(table).setRows(rows).build();
    }

    static GreptimeRequest insert(RowInsertRequest... tables) {
        return GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setRowInserts(RowInsertRequests.newBuilder().addAllInserts(List.of(tables))).build();
    }

    static void assertRefused(Status status, Metadata trailers) {
        assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode(), status.toString());
        assertEquals("1004", trailers == null ? null : trailers.get(CODE));
        assertTrue(status.getDescription().startsWith("Invalid request to region "), status.getDescription());
        assertTrue(status.getDescription().endsWith(REASON), status.getDescription());
    }

    @Test
    void aRowInsertPastTheLastDayIsRefusedAndTheDayBeforeIsStored() {
        assertEquals(1, stub.handle(insert(rows("t", LAST_FITTING))).getAffectedRows().getValue());
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> stub.handle(insert(rows("t", 1, PAST_THE_LAST_DAY))));
        assertRefused(e.getStatus(), e.getTrailers());
        assertEquals(1, server.rowCount("t"), "nothing of the refused write is stored");
    }

    @Test
    void aRequestToSeveralTablesWithOneSuchRowFailsWhole() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> stub.handle(insert(rows("fine", 1, 2), rows("late", PAST_THE_LAST_DAY))));
        assertRefused(e.getStatus(), e.getTrailers());
        assertEquals(0, server.rowCount("fine"));
        assertEquals(0, server.rowCount("late"));
    }

    @Test
    void aStreamMessageWithSuchARowEndsTheStreamRefused() throws Exception {
        CompletableFuture<GreptimeResponse> answer = new CompletableFuture<>();
        StreamObserver<GreptimeRequest> in = GreptimeDatabaseGrpc.newStub(channel).handleRequests(new StreamObserver<>() {
            @Override
            public void onNext(GreptimeResponse value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                answer.complete(null);
            }
        });
        in.onNext(insert(rows("s", PAST_THE_LAST_DAY)));
        in.onCompleted();
        ExecutionException e = assertThrows(ExecutionException.class, () -> answer.get(60, TimeUnit.SECONDS));
        assertRefused(Status.fromThrowable(e.getCause()), Status.trailersFromThrowable(e.getCause()));
        assertEquals(0, server.rowCount("s"));
    }

    @Test
    void aSqlInsertOfSuchATimeIsRefused() throws Exception {
        HttpResponse<String> created = sql("CREATE TABLE q (ts TIMESTAMP(9) TIME INDEX, v BIGINT)");
        assertEquals(200, created.statusCode(), created.body());
        HttpResponse<String> r = sql("INSERT INTO q VALUES (" + PAST_THE_LAST_DAY + ", 1)");
        assertEquals("1004", r.headers().firstValue("x-greptime-err-code").orElse(null), r.body());
        assertTrue(r.body().contains(REASON), r.body());
        assertEquals(0, server.rowCount("q"));
    }

    HttpResponse<String> sql(String statement) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + server.httpEndpoint()
                        + "/v1/sql?db=public")).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(statement, StandardCharsets.UTF_8)))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aBulkBatchWithSuchARowIsRefused() throws Exception {
        stub.handle(insert(rows("b", 1)));
        Schema schema = new Schema(List.of(new Field("ts", new FieldType(false,
                new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.NANOSECOND, null), null), null)));
        CompletableFuture<Void> done = new CompletableFuture<>();
        try (BufferAllocator alloc = new RootAllocator();
             FlightClient client = FlightClient.builder(alloc, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
             VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc)) {
            FlightClient.ClientStreamListener put = client.startPut(FlightDescriptor.path("b"), root,
                    new FlightClient.PutListener() {
                        @Override
                        public void getResult() {
                        }

                        @Override
                        public void onNext(PutResult val) {
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
            root.allocateNew();
            ((TimeStampNanoVector) root.getVector("ts")).set(0, 2);
            ((TimeStampNanoVector) root.getVector("ts")).set(1, PAST_THE_LAST_DAY);
            root.setRowCount(2);
            put.putNext();
            put.completed();
            ExecutionException e = assertThrows(ExecutionException.class, () -> done.get(60, TimeUnit.SECONDS));
            FlightRuntimeException refused = (FlightRuntimeException) e.getCause();
            assertEquals(FlightStatusCode.INVALID_ARGUMENT, refused.status().code());
            assertEquals("1004", refused.status().metadata().get("x-greptime-err-code"));
            assertTrue(refused.status().description().endsWith(REASON), refused.status().description());
        }
        assertEquals(1, server.rowCount("b"), "nothing of the refused batch is stored");
    }
}
