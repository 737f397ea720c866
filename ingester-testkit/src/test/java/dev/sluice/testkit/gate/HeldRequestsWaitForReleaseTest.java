package dev.sluice.testkit.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
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
import dev.sluice.testkit.Faults.HoldPoint;
import dev.sluice.testkit.GreptimeTestServer;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TimeStampMilliVector;
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
 * The hold gate of {@code Faults}: a held request has reached the server and stays unanswered until release, on
 * every write path (Handle, a HandleRequests stream, DoPut batches), driven by raw gRPC and Arrow Flight clients.
 */
@Timeout(120)
class HeldRequestsWaitForReleaseTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final ColumnSchema TS = ColumnSchema.newBuilder().setColumnName("ts")
            .setDatatype(ColumnDataType.TIMESTAMP_MILLISECOND).setSemanticType(SemanticType.TIMESTAMP).build();

    GreptimeTestServer server;
    ManagedChannel channel;

    @BeforeEach
    void up() {
        server = GreptimeTestServer.start();
        channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
    }

    @AfterEach
    void down() {
        channel.shutdownNow();
        server.close();
    }

    static GreptimeRequest insert(String table, long... times) {
        Rows.Builder rows = Rows.newBuilder().addSchema(TS);
        for (long t : times) {
            rows.addRows(Row.newBuilder().addValues(Value.newBuilder().setTimestampMillisecondValue(t)));
        }
        return GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setRowInserts(RowInsertRequests.newBuilder().addInserts(RowInsertRequest.newBuilder()
                        .setTableName(table).setRows(rows))).build();
    }

    CompletableFuture<GreptimeResponse> handle(GreptimeRequest request) {
        CompletableFuture<GreptimeResponse> answer = new CompletableFuture<>();
        GreptimeDatabaseGrpc.newStub(channel).withDeadlineAfter(WAIT.toSeconds(), TimeUnit.SECONDS)
                .handle(request, observer(answer));
        return answer;
    }

    static StreamObserver<GreptimeResponse> observer(CompletableFuture<GreptimeResponse> answer) {
        return new StreamObserver<>() {
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
        };
    }

    static int affected(CompletableFuture<GreptimeResponse> answer) throws Exception {
        return answer.get(WAIT.toSeconds(), TimeUnit.SECONDS).getAffectedRows().getValue();
    }

    @Test
    void aHandleHeldBeforeAnswerIsStoredAndAnsweredOnRelease() throws Exception {
        server.faults().hold(HoldPoint.BEFORE_ANSWER);
        CompletableFuture<GreptimeResponse> answer = handle(insert("h", 1, 2));
        server.faults().awaitHeld(1, WAIT);
        assertEquals(1, server.faults().heldCount());
        assertEquals(2, server.rowCount("h"), "stored before the answer");
        assertFalse(answer.isDone(), "no answer while held");
        server.faults().release();
        assertEquals(2, affected(answer));
        assertEquals(0, server.faults().heldCount());
    }

    @Test
    void aHandleHeldBeforeStoreStoresNothingUntilRelease() throws Exception {
        server.faults().hold(HoldPoint.BEFORE_STORE);
        CompletableFuture<GreptimeResponse> answer = handle(insert("h", 1));
        server.faults().awaitHeld(1, WAIT);
        assertEquals(0, server.rowCount("h"));
        assertFalse(answer.isDone(), "no answer while held");
        server.faults().release();
        assertEquals(1, affected(answer));
        assertEquals(1, server.rowCount("h"));
    }

    @Test
    void aClientThatGivesUpOnAHeldWriteLeavesItStoredOnRelease() throws Exception {
        server.faults().hold(HoldPoint.BEFORE_STORE);
        CompletableFuture<GreptimeResponse> answer;
        io.grpc.Context.CancellableContext call = io.grpc.Context.current().withCancellation();
        io.grpc.Context previous = call.attach();
        try {
            answer = handle(insert("late", 5));
        } finally {
            call.detach(previous);
        }
        server.faults().awaitHeld(1, WAIT);
        call.cancel(null); // the client gives up, as on its own timeout
        Exception e = assertThrows(Exception.class, () -> answer.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(Status.Code.CANCELLED, Status.fromThrowable(e.getCause()).getCode());
        assertEquals(1, server.faults().heldCount());
        assertEquals(0, server.rowCount("late"));
        server.faults().release();
        assertEquals(1, server.rowCount("late"), "the server stored what the client gave up on");
    }

    @Test
    void onlyMatchingRequestsAreHeldAndTheCountIsExact() throws Exception {
        server.faults().hold(HoldPoint.BEFORE_ANSWER, r -> r.tables().contains("held"));
        CompletableFuture<GreptimeResponse> first = handle(insert("held", 1));
        CompletableFuture<GreptimeResponse> second = handle(insert("held", 2));
        assertEquals(1, affected(handle(insert("free", 1))), "a request the matcher refuses is answered at once");
        server.faults().awaitHeld(2, WAIT);
        assertEquals(2, server.faults().heldCount());
        assertFalse(first.isDone() || second.isDone());
        server.faults().release();
        assertEquals(1, affected(first));
        assertEquals(1, affected(second));
        assertEquals(1, affected(handle(insert("held", 3))), "release ends the hold");
    }

    @Test
    void awaitHeldSaysHowManyArrivedWhenTooFewDo() throws Exception {
        server.faults().hold(HoldPoint.BEFORE_ANSWER);
        CompletableFuture<GreptimeResponse> answer = handle(insert("h", 1));
        server.faults().awaitHeld(1, WAIT);
        TimeoutException e = assertThrows(TimeoutException.class,
                () -> server.faults().awaitHeld(2, Duration.ofMillis(200)));
        assertTrue(e.getMessage().startsWith("Only 1 of 2 requests arrived and were held"), e.getMessage());
        server.faults().release();
        assertEquals(1, affected(answer));
    }

    CompletableFuture<GreptimeResponse> stream(GreptimeRequest... messages) {
        CompletableFuture<GreptimeResponse> answer = new CompletableFuture<>();
        StreamObserver<GreptimeRequest> in = GreptimeDatabaseGrpc.newStub(channel)
                .withDeadlineAfter(WAIT.toSeconds(), TimeUnit.SECONDS).handleRequests(observer(answer));
        for (GreptimeRequest m : messages) {
            in.onNext(m);
        }
        in.onCompleted();
        return answer;
    }

    @Test
    void aStreamHeldBeforeAnswerIsStoredAndAnsweredAsAWholeOnRelease() throws Exception {
        server.faults().hold(HoldPoint.BEFORE_ANSWER);
        CompletableFuture<GreptimeResponse> answer = stream(insert("s", 1, 2), insert("s", 3));
        server.faults().awaitHeld(1, WAIT);
        assertEquals(1, server.faults().heldCount(), "one stream, one held answer");
        assertEquals(3, server.rowCount("s"));
        assertFalse(answer.isDone());
        server.faults().release();
        assertEquals(3, affected(answer));
    }

    @Test
    void aStreamHeldBeforeStoreIsStoredInOrderOnRelease() throws Exception {
        server.faults().hold(HoldPoint.BEFORE_STORE, r -> r.tables().contains("later"));
        CompletableFuture<GreptimeResponse> answer = stream(insert("first", 1), insert("later", 1), insert("first", 2));
        server.faults().awaitHeld(1, WAIT);
        assertEquals(1, server.rowCount("first"), "the message before the held one is stored");
        assertEquals(0, server.rowCount("later"));
        assertFalse(answer.isDone());
        server.faults().release();
        assertEquals(3, affected(answer));
        assertEquals(2, server.rowCount("first"), "messages behind the held one wait, then are stored");
        assertEquals(1, server.rowCount("later"));
    }

    /** Puts one-row batches on a DoPut stream; each answer's app_metadata JSON lands in {@code answers}. */
    final class Put implements AutoCloseable {
        final BlockingQueue<JsonObject> answers = new LinkedBlockingQueue<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final BufferAllocator alloc = new RootAllocator();
        final FlightClient client = FlightClient.builder(alloc, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
        final VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(new Field("ts",
                new FieldType(false, new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.MILLISECOND, null), null),
                null))), alloc);
        final FlightClient.ClientStreamListener stream;

        Put(String table) {
            stream = client.startPut(FlightDescriptor.path(table), root, new FlightClient.PutListener() {
                @Override
                public void getResult() {
                }

                @Override
                public void onNext(PutResult val) {
                    ArrowBuf b = val.getApplicationMetadata();
                    byte[] bytes = new byte[(int) b.readableBytes()];
                    b.getBytes(0, bytes);
                    answers.add(JsonParser.parseString(new String(bytes, StandardCharsets.UTF_8)).getAsJsonObject());
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
        }

        void batch(long id, long ts) {
            root.allocateNew();
            ((TimeStampMilliVector) root.getVector("ts")).set(0, ts);
            root.setRowCount(1);
            byte[] md = ("{\"request_id\":" + id + "}").getBytes(StandardCharsets.UTF_8);
            ArrowBuf buf = alloc.buffer(md.length);
            buf.writeBytes(md);
            stream.putNext(buf);
        }

        JsonObject answer() throws InterruptedException {
            JsonObject a = answers.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            if (a == null) {
                throw new AssertionError("no DoPut answer within " + WAIT);
            }
            return a;
        }

        @Override
        public void close() throws Exception {
            root.close();
            client.close();
            alloc.close();
        }
    }

    @Test
    void doPutBatchesHeldBeforeAnswerAreStoredAndAnsweredOnRelease() throws Exception {
        assertEquals(1, affected(handle(insert("b", 0))));
        server.faults().hold(HoldPoint.BEFORE_ANSWER);
        try (Put put = new Put("b")) {
            assertEquals(0, put.answer().get("request_id").getAsLong(), "the stream's first answer");
            put.batch(1, 10);
            put.batch(2, 20);
            put.batch(3, 30);
            put.stream.completed();
            server.faults().awaitHeld(3, WAIT);
            assertEquals(3, server.faults().heldCount(), "each batch is one held request");
            assertEquals(4, server.rowCount("b"), "held batches are stored");
            assertNull(put.answers.peek(), "no batch answered while held");
            assertFalse(put.done.isDone(), "the stream stays open while answers are held");
            server.faults().release();
            for (long id = 1; id <= 3; id++) {
                assertEquals(id, put.answer().get("request_id").getAsLong());
            }
            put.done.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void doPutBatchesHeldBeforeStoreAreStoredInOrderOnRelease() throws Exception {
        assertEquals(1, affected(handle(insert("b", 0))));
        server.faults().hold(HoldPoint.BEFORE_STORE);
        try (Put put = new Put("b")) {
            put.answer();
            put.batch(1, 10);
            put.batch(2, 20);
            put.stream.completed();
            server.faults().awaitHeld(2, WAIT);
            assertEquals(2, server.faults().heldCount());
            assertEquals(1, server.rowCount("b"), "nothing of a batch held before storing is stored");
            assertNull(put.answers.peek());
            server.faults().release();
            assertEquals(1, put.answer().get("request_id").getAsLong());
            assertEquals(2, put.answer().get("request_id").getAsLong());
            put.done.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(3, server.rowCount("b"));
        }
    }

    @Test
    void closingTheServerReleasesHeldRequestsSoNothingWaits() throws Exception {
        server.faults().hold(HoldPoint.BEFORE_STORE);
        CompletableFuture<GreptimeResponse> answer = handle(insert("c", 1));
        server.faults().awaitHeld(1, WAIT);
        server.close();
        assertEquals(0, server.faults().heldCount());
        assertEquals(1, server.rowCount("c"), "released on close: stored");
        try {
            answer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException dropped) {
            // The answer may lose the race with the closing connection; either way the call has ended.
        }
        assertTrue(answer.isDone());
    }

    @Test
    void resetReleasesHeldRequests() throws Exception {
        server.faults().hold(HoldPoint.BEFORE_ANSWER);
        CompletableFuture<GreptimeResponse> answer = handle(insert("r", 1));
        server.faults().awaitHeld(1, WAIT);
        server.faults().reset();
        assertEquals(1, affected(answer));
    }
}
