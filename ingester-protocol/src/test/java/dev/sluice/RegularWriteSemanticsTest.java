package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.send.ManualTime;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WhenFull;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RegularWriteSemanticsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    GreptimeTestServer server;
    GreptimeDB db;

    static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @BeforeEach
    void open() {
        server = testkit.server();
        server.clear();
        db = client("public", null);
    }

    @AfterEach
    void close() {
        db.shutdownGracefully();
    }

    GreptimeDB client(String database, AuthInfo auth) {
        return GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), database)
                .authInfo(auth).requestTimeout(Duration.ofSeconds(10)).build());
    }

    /** The recorded writes, without the client's background health checks. */
    static List<RecordedRequest> writes(GreptimeTestServer s) {
        return s.requests().stream().filter(r -> !r.kind().equals("health")).toList();
    }

    static Table cpu(Object... hostUsageTs) {
        Table t = Table.from(CPU);
        for (int i = 0; i < hostUsageTs.length; i += 3) {
            t.addRow(hostUsageTs[i], hostUsageTs[i + 1], hostUsageTs[i + 2]);
        }
        return t;
    }

    @Test
    void twoWritesToTheSameKeyKeepTheLast() {
        assertTrue(db.write(cpu("a", 1.0, 10L, "b", 2.0, 10L)).join().isOk());
        assertTrue(db.write(cpu("a", 9.0, 10L)).join().isOk());
        List<Map<String, Object>> rows = server.rows("cpu");
        assertEquals(2, rows.size());
        assertEquals(2.0, rows.get(0).get("usage"));
        assertEquals(9.0, rows.get(1).get("usage"));
    }

    @Test
    void appendModeTablesKeepDuplicates() {
        Context append = Context.newBuilder().hint("append_mode", "true").build();
        assertTrue(db.write(List.of(cpu("a", 1.0, 10L)), WriteOp.Insert, append).join().isOk());
        assertTrue(db.write(List.of(cpu("a", 1.0, 10L)), WriteOp.Insert, append).join().isOk());
        assertEquals(2, server.rowCount("cpu"));
        assertEquals("true", server.tableOptions("public", "cpu").get("append_mode"));
    }

    @Test
    void deletesRemoveExactlyTheAddressedRows() {
        assertTrue(db.write(cpu("a", 1.0, 10L, "a", 2.0, 20L, "b", 3.0, 10L, "b", 4.0, 20L)).join().isOk());
        Result<WriteOk, Err> r = db.write(List.of(cpu("a", null, 20L, "b", 0.0, 10L, "c", null, 10L)), WriteOp.Delete,
                Context.newBuilder().build()).join();
        assertTrue(r.isOk(), r::toString);
        assertEquals(3, r.getOk().affectedRows(), "the server counts every delete row sent, host c's absent one included");
        List<Map<String, Object>> rows = server.rows("cpu");
        assertEquals(2, rows.size());
        assertEquals(Map.of("host", "a", "usage", 1.0, "ts", 10L), rows.get(0));
        assertEquals(Map.of("host", "b", "usage", 4.0, "ts", 20L), rows.get(1));
        RecordedRequest delete = writes(server).get(1);
        assertEquals("delete", delete.kind());
    }

    @Test
    void deleteFromAMissingTableIsTableNotFound() {
        Err e = db.write(List.of(cpu("a", 1.0, 1L)), WriteOp.Delete, Context.newBuilder().build()).join().getErr();
        assertEquals(4001, e.code());
        assertEquals(StatusCode.TableNotFound, e.statusCode());
        assertEquals(StatusCode.Grpc.NOT_FOUND, e.grpcCode());
        assertFalse(e.retryable());
    }

    @Test
    void typeConflictIsInvalidArgumentsAndNotRetryable() {
        TableSchema asInt = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
                .addField("usage", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        assertTrue(db.write(cpu("a", 1.0, 1L)).join().isOk());
        Result<WriteOk, Err> r = db.write(Table.from(asInt).addRow("a", 5L, 2L)).join();
        Err e = r.getErr();
        assertEquals(1004, e.code());
        assertEquals(StatusCode.Grpc.INVALID_ARGUMENT, e.grpcCode());
        assertFalse(e.retryable());
        assertTrue(e.message().contains("column usage expect type Float64"), e.message());
        assertEquals(List.of("cpu"), e.tables());
        assertEquals(1, server.rowCount("cpu"));
    }

    @Test
    void timestampUnitMismatchIsATypeConflict() {
        TableSchema seconds = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
                .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampSecond).build();
        assertTrue(db.write(cpu("a", 1.0, 1L)).join().isOk());
        assertEquals(1004, db.write(Table.from(seconds).addRow("a", 1.0, 2L)).join().getErr().code());
    }

    @Test
    void unknownDatabaseIsInvalidArguments() {
        GreptimeDB other = client("nowhere", null);
        try {
            Err e = other.write(cpu("a", 1.0, 1L)).join().getErr();
            assertEquals(1004, e.code());
            assertTrue(e.message().contains("nowhere"), e.message());
        } finally {
            other.shutdownGracefully();
        }
    }

    @Test
    void writesGoToTheConfiguredDatabaseWithItsHeaders() {
        server.createDatabase("metrics_db");
        GreptimeDB other = client("metrics_db", null);
        try {
            assertTrue(other.write(List.of(cpu("a", 1.0, 1L)), WriteOp.Insert,
                    Context.newBuilder().hint("ttl", "7d").build()).join().isOk());
        } finally {
            other.shutdownGracefully();
        }
        assertEquals(1, server.rowCount("metrics_db", "cpu"));
        assertEquals(0, server.rowCount("cpu"));
        RecordedRequest req = writes(server).get(0);
        assertEquals("metrics_db", req.database());
        assertEquals("metrics_db", req.metadata().get("x-greptime-db-name"));
        assertEquals(Map.of("ttl", "7d"), req.hints());
        assertEquals("7days", server.tableOptions("metrics_db", "cpu").get("ttl"), "the server stores ttl normalised");
    }

    @Test
    void authFailuresCarryTheServerCodes() {
        try (GreptimeTestServer secured = GreptimeTestServer.builder().user("admin", "s3cret").start()) {
            String ep = secured.endpoint();
            GreptimeDB none = GreptimeDB.create(GreptimeOptions.newBuilder(ep, "public").build());
            GreptimeDB wrong = GreptimeDB.create(GreptimeOptions.newBuilder(ep, "public")
                    .authInfo(new AuthInfo("admin", "nope")).build());
            GreptimeDB unknown = GreptimeDB.create(GreptimeOptions.newBuilder(ep, "public")
                    .authInfo(new AuthInfo("ghost", "s3cret")).build());
            GreptimeDB good = GreptimeDB.create(GreptimeOptions.newBuilder(ep, "public")
                    .authInfo(new AuthInfo("admin", "s3cret")).build());
            try {
                Err missing = none.write(cpu("a", 1.0, 1L)).join().getErr();
                assertEquals(7003, missing.code());
                assertEquals(StatusCode.Grpc.UNAUTHENTICATED, missing.grpcCode());
                Err mismatch = wrong.write(cpu("a", 1.0, 1L)).join().getErr();
                assertEquals(7002, mismatch.code());
                assertEquals(StatusCode.Grpc.UNAUTHENTICATED, mismatch.grpcCode());
                Err ghost = unknown.write(cpu("a", 1.0, 1L)).join().getErr();
                assertEquals(7000, ghost.code());
                assertEquals(StatusCode.Grpc.NOT_FOUND, ghost.grpcCode());
                assertTrue(good.write(cpu("a", 1.0, 1L)).join().isOk());
                assertEquals(1, secured.rowCount("cpu"));
                RecordedRequest ok = writes(secured).get(3);
                assertEquals("admin", ok.username());
                assertTrue(ok.metadata().get("x-greptime-auth").startsWith("Basic "));
            } finally {
                for (GreptimeDB c : List.of(none, wrong, unknown, good)) {
                    c.shutdownGracefully();
                }
            }
        }
    }

    @Test
    void aRetryableServerErrorIsRetriedAndSucceeds() {
        server.faults().failNext(2, StatusCode.RateLimited, "too many requests in flight");
        Result<WriteOk, Err> r = db.write(cpu("a", 1.0, 1L)).join();
        assertTrue(r.isOk(), r::toString);
        assertEquals(2, db.stats().retries());
        assertEquals(1, server.rowCount("cpu"));
    }

    @Test
    void nonRetryableErrorsAreNotRetried() {
        server.faults().failNext(1, StatusCode.InvalidArguments, "bad");
        assertEquals(1004, db.write(cpu("a", 1.0, 1L)).join().getErr().code());
        assertEquals(0, db.stats().retries());
    }

    @Test
    void retriesStopAtMaxAttemptsWithTheLastError() {
        server.faults().failNext(10, StatusCode.RateLimited, "too many requests in flight");
        Context ctx = Context.newBuilder().retryPolicy(RetryPolicy.newBuilder().maxAttempts(3)
                .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build()).build();
        Err e = db.write(List.of(cpu("a", 1.0, 1L)), WriteOp.Insert, ctx).join().getErr();
        assertEquals(6001, e.code());
        assertTrue(e.message().contains("after 3 attempts"), e.message());
        assertEquals(2, db.stats().retries());
        server.faults().reset();
    }

    @Test
    void injectedServerErrorSurfacesAsRetryableErr() {
        server.faults().failNext(1, StatusCode.RateLimited, "too many requests in flight");
        Err e = db.write(List.of(cpu("a", 1.0, 1L)), WriteOp.Insert,
                Context.newBuilder().retryPolicy(RetryPolicy.none()).build()).join().getErr();
        assertEquals(6001, e.code());
        assertEquals(StatusCode.Grpc.RESOURCE_EXHAUSTED, e.grpcCode());
        assertTrue(e.retryable());
        assertEquals("too many requests in flight", e.message());
        assertEquals(0, server.rowCount("cpu"), "a rejected request stores nothing");
        assertTrue(db.write(cpu("a", 1.0, 1L)).join().isOk());
    }

    @Test
    void deadlinesAreNotRetriedForAppendModeWrites() {
        GreptimeDB quick = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .requestTimeout(Duration.ofMillis(200)).build());
        server.faults().neverRespond(true);
        try {
            Err e = quick.write(List.of(cpu("a", 1.0, 1L)), WriteOp.Insert,
                    Context.newBuilder().hint("append_mode", "true").build()).join().getErr();
            assertEquals(StatusCode.Grpc.DEADLINE_EXCEEDED, e.grpcCode());
            assertEquals(0, quick.stats().retries(), "a timed-out append-mode write may have been committed");
        } finally {
            server.faults().reset();
            quick.shutdownNow();
        }
    }

    @Test
    void internalErrorsAreMaskedLikeTheServer() {
        server.faults().failNext(1, StatusCode.Internal, "secret detail");
        Err e = db.write(cpu("a", 1.0, 1L)).join().getErr();
        assertEquals(1003, e.code());
        assertEquals("Internal error: 1003", e.message());
    }

    @Test
    void autoCreateFalseRefusesAMissingTable() {
        Err e = db.write(List.of(cpu("a", 1.0, 1L)), WriteOp.Insert,
                Context.newBuilder().hint("auto_create_table", "false").build()).join().getErr();
        assertEquals(1004, e.code(), "the server answers InvalidArguments (verified on 1.2)");
        assertTrue(e.message().contains("`auto_create_table` hint is disabled"), e.message());
    }

    @Test
    void newColumnsAreAddedToAnExistingTable() {
        assertTrue(db.write(cpu("a", 1.0, 1L)).join().isOk());
        TableSchema wider = TableSchema.newBuilder("cpu").addTag("host", DataType.String).addTag("dc", DataType.String)
                .addField("usage", DataType.Float64).addField("temp", DataType.Float32)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        assertTrue(db.write(Table.from(wider).addRow("a", "eu", 2.0, 40.5f, 2L)).join().isOk());
        TableSchema stored = server.schema("cpu");
        assertEquals(List.of("host", "usage", "ts", "dc", "temp"),
                stored.columns().stream().map(TableSchema.Column::name).toList());
        assertEquals(SemanticType.Tag, stored.column(3).semanticType());
        assertEquals(null, server.rows("cpu").get(0).get("dc"));
    }

    @Test
    void unansweredCallFailsByItsDeadline() {
        GreptimeDB quick = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .requestTimeout(Duration.ofMillis(300)).retryPolicy(RetryPolicy.none()).build());
        server.faults().neverRespond(true);
        try {
            Err e = quick.write(cpu("a", 1.0, 1L)).orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join().getErr();
            assertEquals(StatusCode.Grpc.DEADLINE_EXCEEDED, e.grpcCode());
            assertEquals(-1, e.code());
        } finally {
            server.faults().reset();
            quick.shutdownGracefully(Duration.ofSeconds(1));
        }
    }

    /**
     * On a manual clock (the client's test hook): the backoff between attempts and the 2 s delivery deadline pass
     * only when the test moves the clock, and each refused attempt fails at once.
     */
    @Test
    void unreachableServerIsARetryableErrNotAnException() {
        ManualTime time = new ManualTime();
        GreptimeDB nowhere = ManualTimeClients.create(GreptimeOptions.newBuilder("127.0.0.1:1", "public")
                .requestTimeout(Duration.ofSeconds(5))
                .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(2)).build()).build(), time);
        try {
            CompletableFuture<Result<WriteOk, Err>> f = nowhere.write(cpu("a", 1.0, 1L));
            time.advanceUntil(f, Duration.ofMillis(5));
            Err e = f.join().getErr();
            assertEquals(StatusCode.Grpc.UNAVAILABLE, e.grpcCode());
            assertTrue(e.retryable());
        } finally {
            nowhere.shutdownNow();
        }
    }

    /**
     * On a manual clock (the client's test hook): a write the server refuses with a retryable error is sent again
     * after each backoff until its 2 s delivery deadline, and fails at that deadline: not before it, and not after
     * another backoff.
     */
    @Test
    void aRetryableRefusalIsResentUntilTheDeliveryDeadlineOnTheClientsClock() {
        ManualTime time = new ManualTime();
        GreptimeDB manual = ManualTimeClients.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .retryPolicy(RetryPolicy.newBuilder().backoff(Duration.ofMillis(100), Duration.ofMillis(400))
                        .deliveryTimeout(Duration.ofSeconds(2)).build()).build(), time);
        server.faults().failEvery(1, StatusCode.StorageUnavailable, "write buffer full");
        try {
            long start = time.getAsLong();
            CompletableFuture<Result<WriteOk, Err>> f = manual.write(cpu("a", 1.0, 1L));
            time.advanceUntil(f, Duration.ofMillis(5));
            long ms = (time.getAsLong() - start) / 1_000_000;
            Err e = f.join().getErr();
            // The last attempt gets what is left of the delivery deadline as its gRPC deadline, which gRPC times on
            // the real clock: a few milliseconds when the last backoff ends just before the deadline, and a busy
            // machine may not bring the refusal back within them. Either way the write ends at its deadline.
            assertTrue(e.code() == StatusCode.StorageUnavailable.code()
                    || e.grpcCode() == StatusCode.Grpc.DEADLINE_EXCEEDED, e::toString);
            assertTrue(e.retryable(), e::toString);
            long attempts = server.requests().stream().filter(r -> r.tables().contains("cpu")).count();
            assertTrue(attempts >= 3, "resent after each backoff: " + attempts + " attempts reached the server");
            assertTrue(ms >= 2_000 - 400, "failed after " + ms + " ms on the clock, a backoff before its deadline");
            // The clock moves in 5 ms steps: the last attempt, made before the deadline, fails within a step of it.
            assertTrue(ms <= 2_000 + 5, "failed by its 2 s delivery deadline: " + ms + " ms on the clock");
            assertEquals(0, server.rowCount("cpu"), "a refused write stores nothing");
        } finally {
            server.faults().reset();
            manual.shutdownNow();
        }
    }

    /** A client whose requests are at most 4 KiB, so that small tables are split. */
    GreptimeDB smallMessages() {
        return GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .maxMessageSize(4096).build());
    }

    /** 1,000 rows of distinct hosts: about 20 KiB encoded. */
    static Table thousandHosts() {
        Table t = Table.from(CPU);
        for (int i = 0; i < 1_000; i++) {
            t.addRow("host-" + i, 1.0, (long) i);
        }
        return t;
    }

    @Test
    void aWriteOverMaxMessageSizeIsSentInPartsAndAnsweredWithTheSum() {
        GreptimeDB small = smallMessages();
        try {
            Table t = thousandHosts();
            Result<WriteOk, Err> r = small.write(t).join();
            assertTrue(r.isOk(), r::toString);
            assertEquals(1_000, r.getOk().affectedRows());
            assertEquals(1_000, server.rowCount("cpu"));
            List<RecordedRequest> sent = writes(server);
            assertTrue(sent.size() > 1, "split into several requests: " + sent.size());
        } finally {
            small.shutdownGracefully();
        }
    }

    @Test
    void aFailedPartOfASplitWriteIsNamedAndTheOthersAreStored() {
        GreptimeDB small = smallMessages();
        try {
            Table t = thousandHosts();
            server.faults().failNext(1, StatusCode.InvalidArguments, "bad part");
            Err e = small.write(t).join().getErr();
            assertEquals(1004, e.code());
            assertTrue(e.message().startsWith("part "), e.message());
            assertTrue(e.message().contains("table 'cpu' rows "), e.message());
            long stored = server.rowCount("cpu");
            assertTrue(stored > 0 && stored < 1_000, "the other parts were stored: " + stored);
            assertTrue(e.message().contains("stored " + stored + " rows"), e.message());
        } finally {
            server.faults().reset();
            small.shutdownGracefully();
        }
    }

    @Test
    void aWriteInterruptedWhileWaitingAtTheLimitSaysItWasInterrupted() {
        GreptimeDB one = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .maxInFlightRequests(1).whenFull(WhenFull.Block).maxBlock(Duration.ofSeconds(5)).build());
        try {
            server.faults().latency(Duration.ofMillis(500));
            CompletableFuture<Result<WriteOk, Err>> first = one.write(cpu("a", 1.0, 1L));
            Thread.currentThread().interrupt();
            Err e;
            try {
                e = one.write(cpu("b", 1.0, 2L)).join().getErr();
            } finally {
                Thread.interrupted();
            }
            assertTrue(e.message().contains("interrupted"), e.message());
            assertTrue(first.join().isOk());
        } finally {
            server.faults().reset();
            one.shutdownGracefully();
        }
    }

    @Test
    void aSingleRowOverMaxMessageSizeFailsWithoutBeingSent() {
        GreptimeDB small = smallMessages();
        try {
            Table t = Table.from(CPU);
            t.addRow("h", 1.0, 1L);
            t.addRow("x".repeat(5_000), 1.0, 2L);
            Err e = small.write(t).join().getErr();
            assertEquals(StatusCode.Grpc.OUT_OF_RANGE, e.grpcCode());
            assertTrue(e.message().contains("maxMessageSize"), e.message());
            assertTrue(e.message().contains("rows 1..1"), e.message());
            assertEquals(0, writes(server).size());
        } finally {
            small.shutdownGracefully();
        }
    }

    @Test
    void writesAfterShutdownFailWithoutBeingSent() {
        db.shutdownGracefully();
        Err e = db.write(cpu("a", 1.0, 1L)).join().getErr();
        assertTrue(e.message().contains("shut down"), e.message());
        assertEquals(0, writes(server).size());
    }

    @Test
    void shutdownGracefullyWaitsForWritesInFlight() {
        server.faults().latency(Duration.ofMillis(300));
        CompletableFuture<Result<WriteOk, Err>> f = db.write(cpu("a", 1.0, 1L));
        assertTrue(db.shutdownGracefully(Duration.ofSeconds(5)));
        assertTrue(f.isDone());
        assertTrue(f.join().isOk(), f.join()::toString);
        assertEquals(1, server.rowCount("cpu"));
    }

    @Test
    void shutdownGracefullyLetsAWriteWaitingToRetryFinish() {
        server.faults().failNext(1, StatusCode.RateLimited, "too many requests in flight");
        Context ctx = Context.newBuilder().retryPolicy(RetryPolicy.newBuilder().maxAttempts(3)
                .backoff(Duration.ofMillis(300), Duration.ofMillis(300)).build()).build();
        CompletableFuture<Result<WriteOk, Err>> f = db.write(List.of(cpu("a", 1.0, 1L)), WriteOp.Insert, ctx);
        assertTrue(db.shutdownGracefully(Duration.ofSeconds(5)));
        assertTrue(f.join().isOk(), f.join()::toString);
        assertEquals(1, server.rowCount("cpu"));
    }

    @Test
    void shutdownNowFailsAWriteWaitingToRetryInsteadOfLeavingItHanging() throws Exception {
        // Every attempt fails; each retry waits a uniform draw in [0, 30 s], so a retry is almost surely pending.
        server.faults().failNext(10, StatusCode.RateLimited, "too many requests in flight");
        Context ctx = Context.newBuilder().retryPolicy(RetryPolicy.newBuilder().maxAttempts(3)
                .backoff(Duration.ofSeconds(30), Duration.ofSeconds(30)).build()).build();
        CompletableFuture<Result<WriteOk, Err>> f = db.write(List.of(cpu("a", 1.0, 1L)), WriteOp.Insert, ctx);
        Await.until("a retry is waiting on its backoff", Duration.ofSeconds(60), () -> db.stats().retries() >= 1);
        db.shutdownNow();
        Err e = f.get(10, java.util.concurrent.TimeUnit.SECONDS).getErr();
        server.faults().reset();
        assertEquals(StatusCode.Grpc.UNAVAILABLE, e.grpcCode(), e::toString);
        assertEquals(List.of("cpu"), e.tables());
        assertTrue(e.message().contains("shut down before the write was answered"), e.message());
        assertEquals(0, server.rowCount("cpu"));
    }

    @Test
    void callbacksDoNotRunOnGrpcIoThreads() {
        String thread = db.write(cpu("a", 1.0, 1L)).thenApply(r -> Thread.currentThread().getName()).join();
        assertTrue(thread.startsWith("sluice-callback-") || thread.equals(Thread.currentThread().getName()), thread);
        assertFalse(thread.contains("grpc-nio") || thread.contains("grpc-default-worker"), thread);
    }

    @Test
    void createTableMakesAnEmptyTableWithOptionsAndIsIdempotent() {
        Context ctx = Context.newBuilder().hint("ttl", "30d").hint("append_mode", "true").build();
        assertTrue(db.createTable(CPU, ctx).join().isOk());
        assertTrue(db.createTable(CPU, ctx).join().isOk(), "create if not exists");
        assertEquals(CPU.columns(), server.schema("cpu").columns());
        assertEquals("30days", server.tableOptions("public", "cpu").get("ttl"), "the server stores ttl normalised");
        assertEquals(0, server.rowCount("cpu"));
    }

    @Test
    void lz4IsRefusedOnTheRegularPathBeforeSending() {
        assertThrows(IllegalArgumentException.class, () -> db.write(List.of(cpu("a", 1.0, 1L)), WriteOp.Insert,
                Context.newBuilder().compression(Compression.Lz4).build()));
        assertEquals(0, writes(server).size());
    }

    @Test
    void passwordsNeverAppearInToString() {
        GreptimeOptions o = GreptimeOptions.newBuilder("h:1", "public")
                .authInfo(new AuthInfo("u", "hunter2")).build();
        assertFalse(o.toString().contains("hunter2"));
        assertNotEquals(-1, o.toString().indexOf("****"));
    }
}
