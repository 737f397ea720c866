package dev.sluice.bulk.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.AuthInfo;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * With a wrong password, neither the table creation nor any batch can ever pass: the first batch fails as a Setup
 * error without waiting out the delivery deadline (here longer than the hang guard), the writer's later batches fail
 * too, and nothing is stored or held.
 */
class AWrongPasswordFailsTheBulkBatchAtOnceAsASetupErrorTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("guarded").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void theBatchFailsAsSetupWithoutRetrying() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().user("admin", "secret").start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .authInfo(new AuthInfo("admin", "wrong"))
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Await.BEYOND_THE_HANG_GUARD).build()).build());
            try {
                for (boolean create : new boolean[] {true, false}) {
                    try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA,
                            BulkWrite.Config.newBuilder().createTable(create).build(), Context.newBuilder().build())) {
                        TableBufferRoot batch = w.tableBufferRoot(5);
                        for (int i = 0; i < 5; i++) {
                            batch.addRow("h", i * 1.0, (long) i);
                        }
                        CompletableFuture<Integer> f = Await.returns("writeNext", w::writeNext);
                        ExecutionException e = Await.returns("the batch's answer",
                                () -> assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.MINUTES)));
                        assertTrue(e.getCause() instanceof dev.sluice.write.WriteException, e.getCause().toString());
                        assertEquals(ErrorKind.Setup, ((dev.sluice.write.WriteException) e.getCause()).kind(),
                                "createTable=" + create + ": " + e.getCause());
                    }
                }
                assertEquals(0, server.rowCount("guarded"));
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), true);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
