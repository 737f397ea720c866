package dev.sluice.bulk.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batching writer on the bulk path given a row of a table with a column the bulk path cannot carry (JSON, Vector)
 * refuses that row on the caller's thread, naming table, column and the path that carries it, before anything is sent;
 * rows of other tables written before and after it are stored.
 */
class ARowOfATableTheBulkPathCannotCarryIsRefusedNamingTableAndColumnTest {
    static final TableSchema GOOD = TableSchema.newBuilder("carried").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"Json", "Vector"})
    void theRowIsRefusedAndTheOtherTablesRowsAreStored(DataType uncarried) throws Exception {
        TableSchema.Builder b = TableSchema.newBuilder("uncarried").addTag("host", DataType.String);
        if (uncarried == DataType.Vector) {
            b.addColumn("payload", dev.sluice.data.SemanticType.Field, uncarried, new dev.sluice.data.VectorType(3));
        } else {
            b.addField("payload", uncarried);
        }
        TableSchema bad = b.addTimestamp("ts", DataType.TimestampMillisecond).build();
        Object payload = uncarried == DataType.Vector ? new float[] {1f, 2f, 3f} : "{\"a\":1}";
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                List<CompletableFuture<Void>> futures = new ArrayList<>();
                try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk)
                        .maxBatchRows(100).build(), Context.newBuilder().build())) {
                    for (int i = 0; i < 150; i++) {
                        futures.add(w.write(GOOD, "h", i * 0.5, (long) i));
                    }
                    CompletableFuture<Void> accepted;
                    try {
                        accepted = w.write(bad, "h", payload, 1L);
                    } catch (RuntimeException refused) {
                        String m = refused.getMessage();
                        assertTrue(m.contains("uncarried") && m.contains("payload") && m.contains("regular"),
                                "names table, column and the path that carries it: " + m);
                        accepted = null;
                    }
                    if (accepted != null) {
                        String outcome;
                        try {
                            accepted.get(60, TimeUnit.SECONDS);
                            outcome = "acknowledged";
                        } catch (java.util.concurrent.ExecutionException e) {
                            outcome = "failed later with " + e.getCause();
                        }
                        throw new AssertionError("a " + uncarried + " row on the bulk path was buffered instead of refused "
                                + "on the caller's thread; its future: " + outcome + "; tables on the server: "
                                + server.tables());
                    }
                    for (int i = 150; i < 300; i++) {
                        futures.add(w.write(GOOD, "h", i * 0.5, (long) i));
                    }
                    assertTrue(w.flush(Duration.ofSeconds(60)));
                }
                for (CompletableFuture<Void> f : futures) {
                    f.get(60, TimeUnit.SECONDS);
                }
                assertEquals(300, server.rowCount("carried"));
                assertFalse(server.tables().contains("uncarried"), "nothing of the refused table was sent");
                Await.until("the bulk memory is released", Duration.ofSeconds(60),
                        () -> db.stats().bulkAllocatedBytes() == 0);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
