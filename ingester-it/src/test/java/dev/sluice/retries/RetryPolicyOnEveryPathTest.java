package dev.sluice.retries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.Warm;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteException;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One retry policy, one meaning on every path: against a server that answers every request with a retryable error
 * (RateLimited), a write given {@code maxAttempts(3)} reaches the server exactly three times and then fails with a
 * retryable error, whether it is a regular write, a stream, a batching writer's batch (either path) or a bulk batch;
 * and a write with no attempt cap but a short delivery deadline ends, failed and retryable, on every path.
 */
class RetryPolicyOnEveryPathTest {
    enum Path { Regular, Stream, Batching, BatchingOnBulk, Bulk }

    private static final AtomicLong TS = new AtomicLong(1_700_000_000_000L);
    private static GreptimeTestServer server;

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        server.faults().reset();
    }

    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("usage", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    private static String method(Path path) {
        return switch (path) {
            case Regular, Batching -> "Handle";
            case Stream -> "HandleRequests";
            case Bulk, BatchingOnBulk -> "DoPut";
        };
    }

    private static long rateLimited(String method, String table) {
        return server.requests().stream().filter(r -> r.method().equals(method) && r.tables().contains(table)
                && r.outcome() == StatusCode.RateLimited).count();
    }

    private static Err errOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof WriteException w) {
                return w.err();
            }
        }
        throw new AssertionError("no WriteException in " + t, t);
    }

    /**
     * Writes one row through a path, with the faults armed just before; returns the failure (null when stored).
     * Waits at most 60 s for it. A batching writer first stores one row unfaulted, so that its bulk path has created
     * its table (a DDL call the faults would refuse) before the measured write.
     */
    private static Err writeOne(GreptimeDB db, Path path, TableSchema s, Context ctx, Runnable arm) throws Exception {
        long ts = TS.getAndIncrement();
        if (path != Path.Batching && path != Path.BatchingOnBulk) {
            arm.run();
        }
        try {
            switch (path) {
                case Regular -> {
                    Result<WriteOk, Err> r = db.write(List.of(Table.from(s).addRow("h", 0.5, ts)), WriteOp.Insert,
                            ctx).get(60, TimeUnit.SECONDS);
                    return r.isOk() ? null : r.getErr();
                }
                case Stream -> {
                    StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(), ctx);
                    w.write(Table.from(s).addRow("h", 0.5, ts));
                    w.completed().get(60, TimeUnit.SECONDS);
                    return null;
                }
                case Batching, BatchingOnBulk -> {
                    BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder()
                            .path(path == Path.Batching ? BatchingWriter.Path.Regular : BatchingWriter.Path.Bulk)
                            .build(), ctx);
                    try {
                        w.write(s, "warm-up", 0.5, TS.getAndIncrement()).get(60, TimeUnit.SECONDS);
                        arm.run();
                        CompletableFuture<Void> f = w.write(s, "h", 0.5, ts);
                        f.get(60, TimeUnit.SECONDS);
                    } finally {
                        w.close();
                    }
                    return null;
                }
                case Bulk -> {
                    try (BulkStreamWriter bulk = db.bulkStreamWriter(s,
                            BulkWrite.Config.newBuilder().createTable(false).build(), ctx)) {
                        TableBufferRoot batch = bulk.tableBufferRoot(4);
                        batch.addRow("h", 0.5, ts);
                        bulk.writeNext();
                        bulk.completed();
                    }
                    return null;
                }
                default -> throw new IllegalStateException();
            }
        } catch (java.util.concurrent.ExecutionException e) {
            return errOf(e.getCause());
        } catch (RuntimeException e) {
            return errOf(e);
        }
    }

    private static TableSchema createTable(String name) {
        TableSchema s = schema(name);
        try (GreptimeDB setup = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
            Result<WriteOk, Err> r = setup.write(Table.from(s).addRow("setup", 0.0, TS.getAndIncrement())).join();
            assertTrue(r.isOk(), () -> String.valueOf(r.getErr()));
        }
        return s;
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void maxAttemptsMeansTheSameNumberOfSendsOnEveryPath(Path path) throws Exception {
        TableSchema s = createTable("attempts_" + path.name().toLowerCase());
        Context ctx = Context.newBuilder().retryPolicy(RetryPolicy.newBuilder().maxAttempts(3)
                .backoff(Duration.ofMillis(10), Duration.ofMillis(50)).build()).build();
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
            Err err = writeOne(db, path, s, ctx,
                    () -> server.faults().failEvery(1, StatusCode.RateLimited, "slow down"));
            server.faults().reset();
            assertNotNull(err, path + " write was stored under a server that refuses everything");
            assertTrue(err.retryable(), "the last failure is retryable: " + err);
            assertEquals(3, rateLimited(method(path), s.tableName()),
                    path + ": sends of the write that the server refused, with maxAttempts(3); last error " + err);
        }
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void theDeliveryDeadlineEndsAWriteWithNoAttemptCapOnEveryPath(Path path) throws Exception {
        TableSchema s = createTable("deadline_" + path.name().toLowerCase());
        // The deadline leaves a loaded machine room for several refused attempts; the client is connected and its
        // paths loaded first, so the deadline is spent on attempts, not on a first connection.
        Context ctx = Context.newBuilder().retryPolicy(RetryPolicy.newBuilder()
                .backoff(Duration.ofMillis(20), Duration.ofMillis(100)).deliveryTimeout(Duration.ofSeconds(4))
                .build()).build();
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
            Warm.bulk(db);
            Err err = writeOne(db, path, s, ctx,
                    () -> server.faults().failEvery(1, StatusCode.RateLimited, "slow down"));
            server.faults().reset();
            assertNotNull(err, path + " write was stored under a server that refuses everything");
            assertTrue(err.retryable(), "the last failure is retryable: " + err);
            assertTrue(rateLimited(method(path), s.tableName()) > 1, path + " was retried before its deadline");
        }
    }
}
