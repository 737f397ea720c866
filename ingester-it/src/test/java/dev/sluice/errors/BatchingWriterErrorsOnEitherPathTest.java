package dev.sluice.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The guide (section 4): every failure is a {@code WriteException} carrying an {@code Err} with the GreptimeDB code,
 * the gRPC code, whether retrying may help, and the tables concerned. A batching writer's batch refused by the server
 * says so on either path: the server's code (RateLimited, 6001, RESOURCE_EXHAUSTED) and the table, not a transport
 * failure of no table.
 */
class BatchingWriterErrorsOnEitherPathTest {
    private static final Context ONCE = Context.newBuilder().retryPolicy(RetryPolicy.none()).build();

    @ParameterizedTest
    @EnumSource(BatchingWriter.Path.class)
    void aBatchRefusedByTheServerCarriesTheServersCodeAndTheTable(BatchingWriter.Path path) {
        try (GreptimeTestServer server = GreptimeTestServer.builder().allowBulkAutoCreate(false).start()) {
            String table = "refused_batch_" + path.name().toLowerCase();
            TableSchema s = TableSchema.newBuilder(table).addTag("host", DataType.String)
                    .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
            try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
                BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(path).build(), ONCE);
                server.faults().failNext(1, StatusCode.RateLimited, "slow down");
                CompletionException e = assertThrows(CompletionException.class,
                        () -> w.write(s, "h", 0.5, 1_700_000_000_000L).join());
                Throwable c = e.getCause();
                assertTrue(c instanceof WriteException, String.valueOf(c));
                Err err = ((WriteException) c).err();
                assertEquals(StatusCode.RateLimited.code(), err.code(), path + ": the server's code; " + err);
                assertEquals(StatusCode.Grpc.RESOURCE_EXHAUSTED, err.grpcCode(), path + ": " + err);
                assertTrue(err.retryable(), path + ": " + err);
                assertTrue(err.tables().contains(table), path + ": the table concerned; " + err);
                w.close();
            }
        }
    }

    /** A refusal the server marks final (invalid arguments, 1004) must not come back as "retrying may help". */
    @ParameterizedTest
    @EnumSource(BatchingWriter.Path.class)
    void aBatchRefusedForGoodIsNotReportedAsRetryable(BatchingWriter.Path path) {
        try (GreptimeTestServer server = GreptimeTestServer.builder().allowBulkAutoCreate(false).start()) {
            String table = "final_refusal_" + path.name().toLowerCase();
            TableSchema s = TableSchema.newBuilder(table).addTag("host", DataType.String)
                    .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
            try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
                BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(path).build());
                server.faults().failNext(1, StatusCode.InvalidArguments, "bad request");
                CompletionException e = assertThrows(CompletionException.class,
                        () -> w.write(s, "h", 0.5, 1_700_000_000_000L).join());
                Err err = ((WriteException) e.getCause()).err();
                assertEquals(StatusCode.InvalidArguments.code(), err.code(), path + ": the server's code; " + err);
                assertTrue(!err.retryable(), path + ": retrying cannot help; " + err);
                w.close();
            }
        }
    }
}
