package dev.sluice.flush;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.LimitExceededException;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@code flushOrThrow} returns only once every row written before it is stored, and otherwise throws the first
 * batch failure, once, with the server's answer: no caller has to watch batch futures for failures.
 */
class FlushReportsTheFirstFailureTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static GreptimeDB client(GreptimeTestServer server) {
        return GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .retryPolicy(RetryPolicy.none()).build());
    }

    private static BatchingWriter writer(GreptimeDB db) {
        return db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(2).build());
    }

    @Test
    void aRefusedBatchIsThrownOnceWithTheServersAnswerAndLaterRowsAreStored() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            try (BatchingWriter w = writer(db)) {
                server.faults().failNext(1, StatusCode.InvalidArguments, "column v expect type Float64, given: INT64");
                w.write(CPU, "a", 1.0, 1L);
                w.write(CPU, "b", 2.0, 2L);
                BatchWriteException e = assertThrows(BatchWriteException.class, () -> w.flushOrThrow(WAIT));
                assertEquals(StatusCode.InvalidArguments.code(), e.err().code());
                assertEquals(ErrorKind.Data, e.kind());
                assertEquals("v", e.err().column().orElseThrow());

                w.write(CPU, "c", 3.0, 3L);
                w.flushOrThrow(WAIT); // the failure was reported once; these rows are stored
                assertEquals(1, server.rowCount("cpu"));
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void aFailureSettledBeforeTheCallIsStillReported() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            try (BatchingWriter w = writer(db)) {
                server.faults().failNext(1, StatusCode.DatabaseNotFound, "Database not found: nowhere");
                w.write(CPU, "a", 1.0, 1L);
                CompletableFuture<Void> batch = w.write(CPU, "b", 2.0, 2L);
                assertThrows(RuntimeException.class, batch::join); // settled before the flush is called
                BatchWriteException e = assertThrows(BatchWriteException.class, () -> w.flushOrThrow(WAIT));
                assertEquals(ErrorKind.Setup, e.kind());
                assertEquals(0, server.rowCount("cpu"));
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void aFlushWithNoAnswerWithinItsWaitSaysSoAndReportsNothing() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            BatchingWriter w = writer(db);
            try {
                server.faults().neverRespond(true);
                w.write(CPU, "a", 1.0, 1L);
                LimitExceededException e = assertThrows(LimitExceededException.class,
                        () -> w.flushOrThrow(Duration.ofMillis(200)));
                assertTrue(e.getMessage().contains("did not finish"), e.getMessage());
            } finally {
                db.shutdownNow();
                w.close();
            }
        }
    }
}
