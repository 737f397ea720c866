package dev.sluice.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriteException;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.errors.StandardErrorCapture;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A shut-down client refuses everything the same way, and its own shutdown is not reported as a failure. */
class ShutDownClientTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final String SHUT_DOWN = "the client is shut down";
    private static GreptimeTestServer server;

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static GreptimeDB shutDownClient(boolean now) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
        if (now) {
            db.shutdownNow();
        } else {
            db.shutdownGracefully();
        }
        return db;
    }

    private static Table oneRow() {
        Table t = Table.from(CPU);
        t.addRow("h1", 0.5, 1_700_000_000_000L);
        return t;
    }

    @ParameterizedTest(name = "shutdownNow={0}")
    @ValueSource(booleans = {false, true})
    void everyFactoryAndWriteSaysTheClientIsShutDown(boolean now) {
        GreptimeDB db = shutDownClient(now);
        for (BatchingWriter.Path path : BatchingWriter.Path.values()) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> db.batchingWriter(BatchingWriter.Config.newBuilder().path(path).build()), path.name());
            assertTrue(e.getMessage().contains(SHUT_DOWN), e.getMessage());
        }
        StreamWriteException stream = assertThrows(StreamWriteException.class, db::streamWriter);
        assertTrue(stream.getMessage().contains(SHUT_DOWN), stream.getMessage());
        for (boolean create : new boolean[] {true, false}) {
            BulkWriteException bulk = assertThrows(BulkWriteException.class, () -> db.bulkStreamWriter(CPU,
                    BulkWrite.Config.newBuilder().createTable(create).build(), Context.newBuilder().build()));
            assertTrue(bulk.getMessage().contains(SHUT_DOWN), bulk.getMessage());
            assertFalse(bulk.retryable(), "the same client will never take it");
        }
        for (Err err : List.of(db.write(oneRow()).join().getErr(),
                db.createTable(CPU, Context.newBuilder().build()).join().getErr())) {
            assertTrue(err.message().contains(SHUT_DOWN), err.message());
            assertFalse(err.retryable());
        }
        assertEquals(List.of(), server.tables(), "nothing reached the server");
    }

    @ParameterizedTest(name = "shutdownNow={0}")
    @ValueSource(booleans = {false, true})
    void aClientShutDownWithoutWritingLogsNoHealthCheckFailure(boolean now) throws Exception {
        // A peer that accepts connections and never answers: the client's first health check is still waiting
        // when the client shuts down, and is ended by that shutdown.
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             StandardErrorCapture log = new StandardErrorCapture()) {
            BlockingQueue<Socket> accepted = new ArrayBlockingQueue<>(8);
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            ExecutorService callbacks = Executors.newFixedThreadPool(2);
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder("127.0.0.1:" + silent.getLocalPort(), "public").callbackExecutor(callbacks).build());
            Socket connection = accepted.poll(30, TimeUnit.SECONDS);
            assertTrue(connection != null, "the client's first health check connected");
            Consumer<GreptimeDB> shutdown = now ? GreptimeDB::shutdownNow : d -> d.shutdownGracefully(Duration.ofSeconds(1));
            shutdown.accept(db);
            // Every callback of the cancelled check has run once the callback executor has drained.
            callbacks.shutdown();
            assertTrue(callbacks.awaitTermination(30, TimeUnit.SECONDS));
            assertEquals(0, log.linesContaining("failing health checks"), log.text());
            assertEquals(0, log.linesContaining("WARN"), log.text());
            connection.close();
        }
    }
}
