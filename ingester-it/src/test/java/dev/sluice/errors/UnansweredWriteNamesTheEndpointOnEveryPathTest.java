package dev.sluice.errors;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
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
import dev.sluice.write.WriteException;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server that takes a write and never answers it (a hung frontend): on every path the failure that ends the write
 * names the endpoint that did not answer and says that no answer came in time, so an operator knows which frontend
 * to look at.
 */
class UnansweredWriteNamesTheEndpointOnEveryPathTest {
    enum Path { Regular, Stream, Batching, BatchingOnBulk, Bulk }

    private static Err errOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof WriteException w) {
                return w.err();
            }
        }
        throw new AssertionError("no WriteException in " + t, t);
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void theErrorNamesTheEndpointThatDidNotAnswer(Path path) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            String table = "unanswered_" + path.name().toLowerCase();
            TableSchema s = TableSchema.newBuilder(table).addTag("host", DataType.String)
                    .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
            Context once = Context.newBuilder().retryPolicy(RetryPolicy.none()).build();
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Duration.ofMillis(500)).build());
            try {
                // The table is created, the channel connected and (for the bulk paths) Arrow loaded by writes under
                // the default retry policy, resent until stored if the 500 ms timeout catches them on a loaded machine:
                // only the write under test must fail.
                assertTrue(db.write(Table.from(s).addRow("setup", 0.0, 1L)).join().isOk());
                if (path == Path.Bulk || path == Path.BatchingOnBulk) {
                    Warm.bulk(db);
                }
                Err err;
                try {
                    switch (path) {
                        case Regular -> {
                            server.faults().neverRespond(true);
                            Result<WriteOk, Err> r = db.write(List.of(Table.from(s).addRow("h", 0.5, 2L)),
                                    WriteOp.Insert, once).get(30, TimeUnit.SECONDS);
                            err = r.isOk() ? null : r.getErr();
                        }
                        case Stream -> {
                            server.faults().neverRespond(true);
                            StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(),
                                    once);
                            w.write(Table.from(s).addRow("h", 0.5, 2L));
                            w.completed().get(30, TimeUnit.SECONDS);
                            err = null;
                        }
                        case Batching, BatchingOnBulk -> {
                            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder()
                                    .path(path == Path.Batching ? BatchingWriter.Path.Regular : BatchingWriter.Path.Bulk)
                                    .build(), once);
                            // The writer's own first batch (on the bulk path, its stream's opening) has no retries
                            // here: it is written until one is stored.
                            Await.until("a warm-up row stored through the batching writer", Duration.ofSeconds(60),
                                    () -> w.write(s, "warm-up", 0.0, 3L).handle((ok, e) -> e == null).join());
                            server.faults().neverRespond(true);
                            w.write(s, "h", 0.5, 2L).get(30, TimeUnit.SECONDS);
                            err = null;
                        }
                        case Bulk -> {
                            try (BulkStreamWriter bulk = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder()
                                    .createTable(false).requestTimeout(Duration.ofMillis(500)).build(), once)) {
                                server.faults().neverRespond(true);
                                TableBufferRoot batch = bulk.tableBufferRoot(4);
                                batch.addRow("h", 0.5, 2L);
                                bulk.writeNext();
                                bulk.completed();
                            }
                            err = null;
                        }
                        default -> throw new IllegalStateException();
                    }
                } catch (ExecutionException e) {
                    err = errOf(e.getCause());
                } catch (RuntimeException e) {
                    err = errOf(e);
                }
                assertTrue(err != null, path + " write succeeded against a server that never answers");
                String said = err.toString();
                assertTrue(said.contains(server.endpoint()), path + ": names the endpoint " + server.endpoint()
                        + ": " + said);
            } finally {
                server.faults().reset();
                db.shutdownNow();
            }
        }
    }
}
