package dev.sluice.retries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The append-mode rule on the stream and bulk paths, and its other half on every path. A write whose context
 * carries {@code append_mode=true} is not sent again after an ambiguous failure (a timeout: the server may have
 * committed it), so its rows are stored at most once. A failure that is not ambiguous (connection refused: nothing
 * reached any server) is resent like any other, on the endpoint that is alive: the hint must not turn a dead
 * frontend in a cluster into failed writes on one path and not on another.
 */
class AppendModeOnEveryPathTest {
    private static final Context APPEND = Context.newBuilder().hint("append_mode", "true").build();
    private static final AtomicLong TS = new AtomicLong(1_700_000_000_000L);

    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("usage", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    private static void createAppendTable(GreptimeTestServer server, TableSchema s) {
        try (GreptimeDB setup = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
            Result<WriteOk, Err> r = setup.write(List.of(Table.from(s).addRow("setup", 0.0, TS.getAndIncrement())),
                    WriteOp.Insert, APPEND).join();
            assertTrue(r.isOk(), () -> String.valueOf(r.getErr()));
        }
    }

    private static long recorded(GreptimeTestServer server, String method, String table) {
        return server.requests().stream().filter(r -> r.method().equals(method) && r.tables().contains(table)).count();
    }

    /** The write under test reached the server at most once; the table holds its setup row and each copy's ten. */
    private static void assertStoredAtMostOnce(GreptimeTestServer server, String method, String table) {
        AtMostOnce.assertStored(server, table, r -> r.method().equals(method) && r.tables().contains(table), 1, 10);
    }

    @Test
    void aBulkBatchThatTimesOutIsNotResent() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            TableSchema s = schema("append_bulk_timeout");
            createAppendTable(server, s);
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            // The channel is open and Arrow's classes are loaded, and a DoPut stream was opened, all with the default
            // timeout, before the short timeout below governs the one batch it is meant for.
            Warm.bulk(db);
            // The answer comes well after the batch's timeout.
            server.faults().bulkAckDelay(Duration.ofMillis(4_000));
            try (BulkStreamWriter bulk = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().createTable(false)
                    .requestTimeout(Duration.ofMillis(1_500)).build(), APPEND)) {
                TableBufferRoot batch = bulk.tableBufferRoot(16);
                for (int i = 0; i < 10; i++) {
                    batch.addRow("h" + i, i * 0.5, TS.getAndIncrement());
                }
                bulk.writeNext();
                assertThrows(RuntimeException.class, bulk::completed, "the batch timed out and was not resent");
            }
            // A resend, if one were made, would be recorded as a second DoPut batch of this table: none comes within
            // this window (it proves that something did not happen, so it is waited out in full).
            boolean resent = Await.happensWithin(Duration.ofSeconds(3), () -> recorded(server, "DoPut", s.tableName()) > 1);
            server.faults().reset();
            assertFalse(resent, "the timed-out batch was resent");
            assertStoredAtMostOnce(server, "DoPut", s.tableName());
            db.shutdownNow();
        }
    }

    @Test
    void aStreamThatTimesOutIsNotReplayed() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            TableSchema s = schema("append_stream_timeout");
            createAppendTable(server, s);
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Duration.ofMillis(400)).build());
            // The channel opens on a write that is resent until it is stored, not on the stream that is timed.
            Warm.regular(db);
            server.faults().latency(Duration.ofMillis(1_500));
            StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(), APPEND);
            Table t = Table.from(s);
            for (int i = 0; i < 10; i++) {
                t.addRow("h" + i, i * 0.5, TS.getAndIncrement());
            }
            w.write(t);
            assertThrows(RuntimeException.class, () -> w.completed().join());
            // A replay would be recorded as a second message of this table: none comes within this window (it proves
            // that something did not happen, so it is waited out in full).
            boolean replayed = Await.happensWithin(Duration.ofSeconds(3),
                    () -> recorded(server, "HandleRequests", s.tableName()) > 1);
            server.faults().reset();
            assertFalse(replayed, "the timed-out stream was replayed: "
                    + recorded(server, "HandleRequests", s.tableName()) + " messages");
            assertStoredAtMostOnce(server, "HandleRequests", s.tableName());
            db.shutdownNow();
        }
    }

    enum Path { Regular, Batching, Bulk, BatchingOnBulk }

    private static String writeOne(GreptimeDB db, Path path, TableSchema s) {
        long ts = TS.getAndIncrement();
        try {
            switch (path) {
                case Regular -> {
                    Result<WriteOk, Err> r = db.write(List.of(Table.from(s).addRow("h", 0.5, ts)), WriteOp.Insert,
                            APPEND).join();
                    return r.isOk() ? null : r.getErr().toString();
                }
                case Batching, BatchingOnBulk -> {
                    BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder()
                            .path(path == Path.Batching ? BatchingWriter.Path.Regular : BatchingWriter.Path.Bulk)
                            .build(), APPEND);
                    try {
                        w.write(s, "h", 0.5, ts).join();
                    } finally {
                        w.close();
                    }
                    return null;
                }
                case Bulk -> {
                    try (BulkStreamWriter bulk = db.bulkStreamWriter(s,
                            BulkWrite.Config.newBuilder().createTable(false).build(), APPEND)) {
                        TableBufferRoot batch = bulk.tableBufferRoot(4);
                        batch.addRow("h", 0.5, ts);
                        bulk.writeNext();
                        long stored = bulk.completed();
                        return stored == 1 ? null : "stored " + stored;
                    }
                }
                default -> throw new IllegalStateException();
            }
        } catch (RuntimeException e) {
            Throwable c = e;
            while (c.getCause() != null && !(c instanceof dev.sluice.write.WriteException)) {
                c = c.getCause();
            }
            return c.toString();
        }
    }

    /**
     * Two endpoints, the first refusing connections, health checks off: a connection refused is not an ambiguous
     * failure (nothing was sent), so an append-mode write is resent on the live endpoint like any other, on every
     * path, and each row is stored exactly once.
     */
    @ParameterizedTest
    @EnumSource(Path.class)
    void aRefusedConnectionIsNotAmbiguousAndIsResentToTheLiveEndpoint(Path path) throws IOException {
        String dead;
        try (ServerSocket sock = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = "127.0.0.1:" + sock.getLocalPort();
        }
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            TableSchema s = schema("append_refused_" + path.name().toLowerCase());
            createAppendTable(server, s);
            try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(List.of(dead, server.endpoint()),
                    "public").healthCheckInterval(Duration.ZERO).build())) {
                for (int i = 0; i < 6; i++) {
                    String failure = writeOne(db, path, s);
                    if (failure != null) {
                        fail(path + " append-mode write " + i + " failed although nothing reached " + dead
                                + " (connection refused) and " + server.endpoint() + " is alive: " + failure);
                    }
                }
            }
            assertEquals(7, server.rowCount(s.tableName()), "every row stored once");
        }
    }
}
