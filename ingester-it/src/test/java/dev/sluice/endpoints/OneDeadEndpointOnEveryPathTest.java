package dev.sluice.endpoints;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteOk;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two endpoints, the first with nothing listening (connection refused), the second a live server, and health
 * checks off, so that only the writes themselves can find out which endpoint is dead. On every path (regular,
 * stream, batching, bulk):
 * <ul>
 *   <li>with two attempts per write, every write is stored: a failed attempt on the dead endpoint is resent to the
 *       other one;</li>
 *   <li>that path's failures alone eject the dead endpoint from the client's available endpoints;</li>
 *   <li>while it is ejected, every other path avoids it: a write with no retry at all is stored.</li>
 * </ul>
 */
class OneDeadEndpointOnEveryPathTest {
    enum Path { Regular, Stream, Batching, Bulk }

    private static final AtomicLong TS = new AtomicLong(1_700_000_000_000L);
    private static GreptimeTestServer server;
    private static String dead;

    @BeforeAll
    static void start() throws IOException {
        server = GreptimeTestServer.start();
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = "127.0.0.1:" + s.getLocalPort();
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("usage", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    private static GreptimeDB client(RetryPolicy policy) {
        return GreptimeDB.create(GreptimeOptions.newBuilder(List.of(dead, server.endpoint()), "public")
                .healthCheckInterval(Duration.ZERO).retryPolicy(policy).build());
    }

    /** Creates the table through a client that knows only the live endpoint (bulk writes need it to exist). */
    private static void createTable(TableSchema s) {
        try (GreptimeDB setup = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
            Result<WriteOk, Err> r = setup.write(Table.from(s).addRow("setup", 0.0, TS.getAndIncrement())).join();
            assertTrue(r.isOk(), () -> String.valueOf(r.getErr()));
        }
    }

    /**
     * Writes one row through a path and returns null when it was stored, or what went wrong.
     */
    private static String writeOne(GreptimeDB db, Path path, TableSchema s, Context ctx) {
        long ts = TS.getAndIncrement();
        try {
            switch (path) {
                case Regular -> {
                    Result<WriteOk, Err> r = db.write(List.of(Table.from(s).addRow("h", 0.5, ts)),
                            dev.sluice.write.WriteOp.Insert, ctx).join();
                    return r.isOk() ? null : "regular: " + r.getErr();
                }
                case Stream -> {
                    StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(), ctx);
                    w.write(Table.from(s).addRow("h", 0.5, ts));
                    w.completed().join();
                    return null;
                }
                case Batching -> {
                    BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build(), ctx);
                    try {
                        w.write(s, "h", 0.5, ts).join();
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
                        long stored = bulk.completed();
                        return stored == 1 ? null : "bulk stored " + stored;
                    }
                }
                default -> throw new IllegalStateException();
            }
        } catch (RuntimeException e) {
            return path + ": " + e;
        }
    }

    private static boolean deadEjected(GreptimeDB db) {
        List<String> available = db.stats().availableEndpoints();
        return !available.contains(dead);
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void withTwoAttemptsEveryWriteIsStoredOnTheLiveEndpoint(Path path) {
        TableSchema s = schema("two_attempts_" + path.name().toLowerCase());
        createTable(s);
        long before = server.rowCount(s.tableName());
        try (GreptimeDB db = client(RetryPolicy.newBuilder().maxAttempts(2).build())) {
            Context ctx = Context.newBuilder().build();
            for (int i = 0; i < 8; i++) {
                String failure = writeOne(db, path, s, ctx);
                if (failure != null) {
                    fail("write " + i + " was not stored although the second endpoint is alive: " + failure);
                }
            }
        }
        assertEquals(before + 8, server.rowCount(s.tableName()));
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void thePathsOwnFailuresEjectTheDeadEndpoint(Path path) {
        TableSchema s = schema("ejected_by_" + path.name().toLowerCase());
        createTable(s);
        try (GreptimeDB db = client(RetryPolicy.newBuilder().build())) {
            Context ctx = Context.newBuilder().build();
            assertTrue(db.stats().availableEndpoints().contains(dead), "no endpoint is ejected before any write");
            boolean ejected = false;
            for (int i = 0; i < 40 && !ejected; i++) {
                String failure = writeOne(db, path, s, ctx);
                if (failure != null) {
                    fail("write " + i + " failed: " + failure);
                }
                ejected = deadEjected(db);
            }
            assertTrue(ejected, path + " writes kept " + dead + " among the available endpoints: "
                    + db.stats().availableEndpoints());
        }
    }

    /**
     * One path ejects the dead endpoint; while it stays ejected, a write on every other path with no retry at all
     * must go to the live endpoint.
     */
    @ParameterizedTest
    @EnumSource(Path.class)
    void anEndpointEjectedByOnePathIsAvoidedByEveryOther(Path ejecting) {
        TableSchema s = schema("avoided_after_" + ejecting.name().toLowerCase());
        createTable(s);
        Context once = Context.newBuilder().retryPolicy(RetryPolicy.none()).build();
        try (GreptimeDB db = client(RetryPolicy.newBuilder().build())) {
            for (Path other : Path.values()) {
                if (other == ejecting) {
                    continue;
                }
                boolean checked = false;
                for (int round = 0; round < 10 && !checked; round++) {
                    for (int i = 0; i < 40 && !deadEjected(db); i++) {
                        String failure = writeOne(db, ejecting, s, Context.newBuilder().build());
                        if (failure != null) {
                            fail("ejecting write failed: " + failure);
                        }
                    }
                    assertTrue(deadEjected(db), ejecting + " writes never ejected " + dead);
                    String failure = writeOne(db, other, s, once);
                    // Meaningful only if the endpoint was still ejected when the write picked its endpoint: it
                    // is, when it still is now (one failure of this write cannot eject it again by itself).
                    if (deadEjected(db)) {
                        checked = true;
                        if (failure != null) {
                            fail(other + " write went to " + dead + ", which " + ejecting
                                    + " writes had ejected: " + failure);
                        }
                    }
                }
                assertTrue(checked, "could not observe " + other + " while " + dead + " was ejected");
            }
        }
    }

    /**
     * An endpoint ejected by a path's failures comes back when its window runs out (health checks off) and, once
     * something listens there again, gets that path's writes again.
     */
    @ParameterizedTest
    @EnumSource(Path.class)
    void anEjectedEndpointThatComesBackGetsWritesAgain(Path path) throws Exception {
        String comeback;
        int port;
        try (ServerSocket sock = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = sock.getLocalPort();
            comeback = "127.0.0.1:" + port;
        }
        TableSchema s = schema("comes_back_" + path.name().toLowerCase());
        createTable(s);
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(List.of(comeback, server.endpoint()), "public")
                .healthCheckInterval(Duration.ZERO).build())) {
            boolean ejected = false;
            for (int i = 0; i < 40 && !ejected; i++) {
                String failure = writeOne(db, path, s, Context.newBuilder().build());
                if (failure != null) {
                    fail("write " + i + " failed: " + failure);
                }
                ejected = !db.stats().availableEndpoints().contains(comeback);
            }
            assertTrue(ejected, path + " writes never ejected " + comeback);
            try (GreptimeTestServer second = GreptimeTestServer.builder().port(port).start()) {
                // the second server needs the table too, for bulk writes
                try (GreptimeDB setup = GreptimeDB.create(GreptimeOptions.newBuilder(second.endpoint(), "public")
                        .build())) {
                    assertTrue(setup.write(Table.from(s).addRow("setup", 0.0, TS.getAndIncrement())).join().isOk());
                }
                long before = second.rowCount(s.tableName());
                // writes go on until one reaches the endpoint that came back (the client takes it back on a health
                // check or on its ejection's end)
                Await.until(path + " writes go back to " + comeback + " once it listens again", Duration.ofSeconds(60),
                        () -> {
                            String failure = writeOne(db, path, s, Context.newBuilder().build());
                            if (failure != null) {
                                fail("write failed: " + failure);
                            }
                            return second.rowCount(s.tableName()) > before;
                        });
            }
        }
    }
}
