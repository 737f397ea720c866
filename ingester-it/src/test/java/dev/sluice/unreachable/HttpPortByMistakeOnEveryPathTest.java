package dev.sluice.unreachable;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteException;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A new user who points the client at GreptimeDB's HTTP port, with the default settings (health checks on), gets the
 * hint "this is the HTTP port, the gRPC port is 4001 by default" on every path, not only on a regular write.
 */
@SharesJvm
class HttpPortByMistakeOnEveryPathTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private GreptimeTestServer server;
    private String http;
    private GreptimeDB db;

    @BeforeEach
    void start() {
        server = GreptimeTestServer.builder().httpPort(0).start();
        http = server.httpEndpoint();
        db = GreptimeDB.create(GreptimeOptions.newBuilder(http, "public")
                .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(2)).build()).build());
    }

    @AfterEach
    void stop() {
        db.shutdownNow();
        assertEquals(0, server.tables().size(), "nothing was written");
        server.close();
    }

    private void assertHint(String what, String text) {
        assertTrue(text.contains(http) && text.contains("HTTP port") && text.contains("4001"), what + ": " + text);
    }

    private static WriteException writeException(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof WriteException w) {
                return w;
            }
        }
        throw new AssertionError("no WriteException in " + t, t);
    }

    @Test
    void regular() {
        assertHint("regular", db.write(Table.from(CPU).addRow("h", 0.1, 1L)).join().getErr().toString());
    }

    @Test
    void stream() {
        Throwable t;
        try {
            StreamWriter<Table, WriteOk> s = db.streamWriter();
            s.write(Table.from(CPU).addRow("h", 0.1, 1L));
            throw new AssertionError("stream succeeded: " + s.completed().join());
        } catch (CompletionException | WriteException e) {
            t = e;
        }
        WriteException w = writeException(t);
        assertHint("stream", w.getMessage() + " / " + w.err());
    }

    @Test
    void batching() {
        try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build())) {
            Throwable t;
            try {
                w.write(CPU, "h", 0.1, 1L).join();
                throw new AssertionError("batching write succeeded");
            } catch (CompletionException e) {
                t = e;
            }
            assertHint("batching", String.valueOf(writeException(t).err()));
        }
    }

    @Test
    void bulk() {
        Throwable t;
        try (BulkStreamWriter bulk = db.bulkStreamWriter(CPU, BulkWrite.Config.newBuilder().createTable(false).build(),
                Context.newBuilder().build())) {
            TableBufferRoot batch = bulk.tableBufferRoot(10);
            batch.addRow("h", 0.1, 1L);
            bulk.writeNext();
            throw new AssertionError("bulk completed: " + bulk.completed());
        } catch (WriteException | CompletionException e) {
            t = e;
        }
        WriteException w = writeException(t);
        assertHint("bulk", w.getMessage() + " / " + w.err());
    }
}
