package dev.sluice.unreachable;

import dev.sluice.Await;
import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteException;
import dev.sluice.write.WriteOk;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Once the health checks have ejected the only endpoint (nothing listens there), a write on each path still fails
 * loudly with an error that names the endpoint and says the connection was refused: never a success, never an
 * error about a timeout that did not happen.
 */
@SharesJvm
class EndpointEjectedByHealthChecksTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private String endpoint;
    private GreptimeDB db;

    @BeforeEach
    void clientWhoseEndpointIsEjected() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        endpoint = "127.0.0.1:" + port;
        db = GreptimeDB.create(GreptimeOptions.newBuilder(endpoint, "public")
                .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(2)).build()).build());
        Await.until("the health checks eject " + endpoint, Duration.ofSeconds(30),
                () -> db.stats().availableEndpoints().isEmpty());
    }

    @AfterEach
    void close() {
        db.shutdownNow();
    }

    private void assertSaysRefused(String what, String text) {
        assertTrue(text.contains(endpoint), what + " names the endpoint " + endpoint + ": " + text);
        assertTrue(text.toLowerCase(Locale.ROOT).contains("connection refused"), what + " says connection refused: "
                + text);
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
    void regularWrite() {
        Err err = db.write(Table.from(CPU).addRow("h1", 0.5, 1_700_000_000_000L)).join().getErr();
        assertNotNull(err, "a write to an ejected, refusing endpoint failed");
        assertSaysRefused("regular", err.message());
    }

    @Test
    void stream() {
        StreamWriter<Table, WriteOk> s = db.streamWriter();
        Throwable t;
        try {
            s.write(Table.from(CPU).addRow("h1", 0.5, 1_700_000_000_000L));
            WriteOk ok = s.completed().join();
            throw new AssertionError("the stream succeeded: " + ok);
        } catch (CompletionException | WriteException e) {
            t = e;
        }
        WriteException w = writeException(t);
        assertSaysRefused("stream", w.getMessage() + " / " + w.err());
    }

    @Test
    void batchingWriter() {
        try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build())) {
            Throwable t;
            try {
                w.write(CPU, "h1", 0.5, 1_700_000_000_000L).join();
                throw new AssertionError("the batching write succeeded");
            } catch (CompletionException e) {
                t = e;
            }
            assertSaysRefused("batching", writeException(t).err().toString());
        }
    }

    @Test
    void bulkWriterOnAnExistingTable() {
        Throwable t;
        try (BulkStreamWriter bulk = db.bulkStreamWriter(CPU, BulkWrite.Config.newBuilder().createTable(false).build(),
                Context.newBuilder().build())) {
            TableBufferRoot batch = bulk.tableBufferRoot(10);
            batch.addRow("h1", 0.5, 1_700_000_000_000L);
            var ack = bulk.writeNext();
            long stored = bulk.completed();
            throw new AssertionError("completed() returned " + stored + " with nothing listening; writeNext's future: "
                    + ack + ", acked batches " + bulk.ackedBatches() + ", failed " + bulk.failedBatches());
        } catch (WriteException | CompletionException e) {
            t = e;
        }
        WriteException w = writeException(t);
        assertSaysRefused("bulk", w.getMessage() + " / " + w.err());
    }
}
