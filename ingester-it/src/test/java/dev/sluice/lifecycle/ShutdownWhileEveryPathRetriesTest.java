package dev.sluice.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
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
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import dev.sluice.write.RetryPolicy;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * A client with a write under way on one path (regular, stream, batching on either path, bulk), being retried
 * against a server that refuses everything with a retryable error (a 20 s delivery deadline), is shut down,
 * gracefully with a 1 s timeout or at once. The shutdown returns (well within 10 s); every future completes with a
 * failure (none left pending, none reported stored), the bulk writer's {@code completed()} throws rather than
 * waits, and the writers close.
 */
class ShutdownWhileEveryPathRetriesTest {
    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("usage", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    /** Whether the future completed within the bound, and how: "failed", "stored", or "pending". */
    private static String outcome(CompletableFuture<?> f) throws InterruptedException {
        try {
            Object v = f.get(10, TimeUnit.SECONDS);
            if (v instanceof Result<?, ?> r && !r.isOk()) {
                return "failed";
            }
            return "stored: " + v;
        } catch (ExecutionException e) {
            return "failed";
        } catch (TimeoutException e) {
            return "pending";
        } catch (java.util.concurrent.CancellationException e) {
            return "failed";
        }
    }

    /** Bulk: the producer calls {@code completed()} after the shutdown; BulkInCompleted: it waits in it meanwhile. */
    enum Path { Regular, Stream, Batching, BatchingOnBulk, Bulk, BulkInCompleted }

    static Stream<Arguments> cases() {
        return Arrays.stream(Path.values()).flatMap(p -> Stream.of(Arguments.of(p, true), Arguments.of(p, false)));
    }

    @ParameterizedTest(name = "{0}, graceful {1}")
    @MethodSource("cases")
    void everyFutureFailsAndNoneIsLeftPending(Path path, boolean graceful) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            TableSchema s = schema("retrying_" + path.name().toLowerCase() + (graceful ? "_graceful" : "_now"));
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(20)).build()).build());
            Result<WriteOk, Err> created = db.write(Table.from(s).addRow("setup", 0.0, 1L)).join();
            assertTrue(created.isOk(), () -> String.valueOf(created.getErr()));
            List<AutoCloseable> writers = new ArrayList<>();
            Map<String, CompletableFuture<?>> futures = new LinkedHashMap<>();
            switch (path) {
                case Regular -> {
                    server.faults().failEvery(1, StatusCode.RateLimited, "slow down");
                    futures.put("write", db.write(Table.from(s).addRow("h", 0.5, 10L)));
                }
                case Stream -> {
                    server.faults().failEvery(1, StatusCode.RateLimited, "slow down");
                    StreamWriter<Table, WriteOk> sw = db.streamWriter();
                    writers.add(sw);
                    sw.write(Table.from(s).addRow("h", 0.5, 10L));
                    futures.put("completed()", sw.completed());
                }
                case Batching, BatchingOnBulk -> {
                    BatchingWriter bw = db.batchingWriter(BatchingWriter.Config.newBuilder()
                            .path(path == Path.Batching ? BatchingWriter.Path.Regular : BatchingWriter.Path.Bulk)
                            .build());
                    writers.add(bw);
                    // the bulk path creates its table first: let it, before the faults
                    bw.write(s, "warm-up", 0.0, 2L).get(20, TimeUnit.SECONDS);
                    server.faults().failEvery(1, StatusCode.RateLimited, "slow down");
                    futures.put("row", bw.write(s, "h", 0.5, 10L));
                }
                case Bulk, BulkInCompleted -> {
                    BulkStreamWriter bulk = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().createTable(false)
                            .build(), Context.newBuilder().build());
                    writers.add(bulk);
                    server.faults().failEvery(1, StatusCode.RateLimited, "slow down");
                    TableBufferRoot batch = bulk.tableBufferRoot(4);
                    batch.addRow("h", 0.5, 10L);
                    futures.put("writeNext()", bulk.writeNext());
                    if (path == Path.BulkInCompleted) {
                        futures.put("completed()", CompletableFuture.supplyAsync(bulk::completed));
                    }
                }
                default -> throw new IllegalStateException();
            }
            // refused at least twice: the write is between attempts when the client shuts down
            Await.until("the write was retried before the shutdown", Duration.ofSeconds(60),
                    () -> server.faults().injectedCount() >= 2);
            CompletableFuture<Boolean> shutdown = CompletableFuture.supplyAsync(() -> {
                if (graceful) {
                    return db.shutdownGracefully(Duration.ofSeconds(1));
                }
                db.shutdownNow();
                return false;
            });
            String shutdownOutcome = outcome(shutdown);
            if (path == Path.Bulk) {
                BulkStreamWriter bulk = (BulkStreamWriter) writers.get(0);
                futures.put("completed() after the shutdown", CompletableFuture.supplyAsync(bulk::completed));
            }
            Map<String, String> outcomes = new LinkedHashMap<>();
            for (Map.Entry<String, CompletableFuture<?>> e : futures.entrySet()) {
                outcomes.put(e.getKey(), outcome(e.getValue()));
            }
            server.faults().reset();
            assertFalse(shutdownOutcome.equals("pending"), (graceful ? "shutdownGracefully(1 s)" : "shutdownNow()")
                    + " had not returned 10 s later; the write's outcome: " + outcomes);
            for (Map.Entry<String, String> e : outcomes.entrySet()) {
                if (!e.getValue().equals("failed")) {
                    fail((graceful ? "graceful" : "immediate") + " shutdown left " + path + " " + e.getKey() + " "
                            + e.getValue() + "; all outcomes: " + outcomes);
                }
            }
            CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
                for (AutoCloseable w : writers) {
                    try {
                        w.close();
                    } catch (Exception ignored) {
                        // a failed writer may say so when closed
                    }
                }
            });
            closing.get(20, TimeUnit.SECONDS);
            assertEquals(1, server.rowCount(s.tableName()) - (path == Path.Batching || path == Path.BatchingOnBulk
                    ? 1 : 0), "nothing of the refused write stored");
        }
    }
}
