package dev.sluice.unreachable;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * With nothing listening at the endpoint, every path (regular, stream, batching, bulk) ends with an error whose
 * message and {@code toString()} name the endpoint and say the connection was refused, under the default retry
 * policy (retries, health checks on) cut to a short delivery deadline. Stream and bulk are repeated: their
 * outcome depends on whether the first health check has run yet.
 */
@SharesJvm
class UnreachableEndpointOnEveryPathTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private String endpoint;
    private GreptimeDB db;

    @BeforeEach
    void client() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        endpoint = "127.0.0.1:" + port;
        db = GreptimeDB.create(GreptimeOptions.newBuilder(endpoint, "public")
                .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(2)).build()).build());
    }

    @AfterEach
    void close() {
        db.shutdownNow();
    }

    private static Table oneRow() {
        return Table.from(CPU).addRow("h1", 0.5, 1_700_000_000_000L);
    }

    private void assertSaysRefused(String what, String text) {
        assertTrue(text.contains(endpoint), what + " names the endpoint " + endpoint + ": " + text);
        assertTrue(text.toLowerCase(Locale.ROOT).contains("connection refused"), what + " says connection refused: " + text);
    }

    private void assertSaysRefused(String what, Err err) {
        assertNotNull(err, what);
        assertSaysRefused(what + " message", err.message());
        assertSaysRefused(what + " toString", err.toString());
    }

    private static WriteException writeException(Throwable t) {
        Throwable c = t;
        while (c != null && !(c instanceof WriteException)) {
            c = c.getCause();
        }
        assertNotNull(c, "a WriteException carries the Err: " + t);
        return (WriteException) c;
    }

    @Test
    void regularWrite() {
        assertSaysRefused("regular", db.write(oneRow()).join().getErr());
    }

    @RepeatedTest(6)
    void stream() {
        StreamWriter<Table, WriteOk> s;
        try {
            s = db.streamWriter();
            s.write(oneRow());
        } catch (RuntimeException e) {
            WriteException w = writeException(e);
            assertSaysRefused("stream open/write", w.err());
            return;
        }
        CompletionException e = assertThrows(CompletionException.class, () -> s.completed().join());
        WriteException w = writeException(e);
        assertSaysRefused("stream", w.err());
        assertSaysRefused("stream exception message", w.getMessage());
    }

    @Test
    void batchingWriter() {
        BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build());
        CompletionException e = assertThrows(CompletionException.class,
                () -> w.write(CPU, "h1", 0.5, 1_700_000_000_000L).join());
        assertSaysRefused("batching", writeException(e).err());
        w.close();
    }

    @RepeatedTest(6)
    void bulkWriterOnAnExistingTable() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> {
            try (BulkStreamWriter bulk = db.bulkStreamWriter(CPU,
                    BulkWrite.Config.newBuilder().createTable(false).build(), Context.newBuilder().build())) {
                TableBufferRoot batch = bulk.tableBufferRoot(10);
                batch.addRow("h1", 0.5, 1_700_000_000_000L);
                CompletableFuture<Integer> ack = bulk.writeNext();
                long stored = bulk.completed();
                throw new AssertionError("completed() returned " + stored + " with nothing listening; writeNext's"
                        + " future: " + ack + ", acked batches " + bulk.ackedBatches() + ", failed "
                        + bulk.failedBatches());
            }
        });
        WriteException w = writeException(e);
        assertSaysRefused("bulk", w.err());
        assertSaysRefused("bulk exception message", w.getMessage());
    }

    /** Opening does not wait for the table's creation: its failure reaches the first batch's future and completed(). */
    @Test
    void bulkWriterCreatingItsTable() {
        try (BulkStreamWriter bulk = db.bulkStreamWriter(CPU)) {
            bulk.tableBufferRoot(10).addRow("h1", 0.5, 1_700_000_000_000L);
            CompletableFuture<Integer> first = bulk.writeNext();
            ExecutionException e = assertThrows(ExecutionException.class, () -> first.get(60, TimeUnit.SECONDS));
            WriteException w = writeException(e);
            assertSaysRefused("bulk create table", w.err());
            assertSaysRefused("bulk create table exception message", w.getMessage());
            assertTrue(w.getMessage().contains("'cpu'"), "names the table: " + w.getMessage());
            assertSaysRefused("bulk create table at completed()", writeException(
                    assertThrows(RuntimeException.class, bulk::completed)).getMessage());
        }
    }
}
