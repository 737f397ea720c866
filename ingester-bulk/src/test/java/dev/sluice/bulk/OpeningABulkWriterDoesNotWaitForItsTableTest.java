package dev.sluice.bulk;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.Faults;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Opening a bulk writer that creates its table returns while the server is still creating it: the caller fills
 * the first batch meanwhile, and that batch goes out once the table exists. A creation the server refuses reaches
 * the first batch's future, every later one and {@code completed()}, naming the table.
 */
@SharesJvm
class OpeningABulkWriterDoesNotWaitForItsTableTest {
    private static final TableSchema CPU = TableSchema.newBuilder("opened_early").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private ServerAndClient both;

    @BeforeEach
    void start() {
        both = ServerAndClient.start();
    }

    @AfterEach
    void stop() {
        both.close();
    }

    @Test
    void theWriterOpensWhileTheTableIsBeingCreatedAndItsFirstBatchIsStoredOnceItExists() throws Exception {
        both.server().faults().hold(Faults.HoldPoint.BEFORE_STORE, r -> r.kind().equals("ddl"));
        try (BulkStreamWriter w = both.db().bulkStreamWriter(CPU, BulkWrite.Config.newBuilder().build(),
                Context.newBuilder().build())) {
            // Opened with the creation still held by the server: nothing is stored yet.
            both.server().faults().awaitHeld(1, Duration.ofSeconds(30));
            assertTrue(both.server().tables().isEmpty(), "tables while held: " + both.server().tables());
            TableBufferRoot root = w.tableBufferRoot(10);
            root.addRow("h1", 0.5, 1_700_000_000_000L);
            root.addRow("h2", 0.7, 1_700_000_000_001L);
            both.server().faults().release();
            assertEquals(2, w.writeNext().get(30, TimeUnit.SECONDS));
            assertEquals(2, w.completed());
        }
        assertEquals(2, both.server().rows("opened_early").size(), "rows stored");
    }

    @Test
    void aRefusedCreationFailsTheFirstBatchAndCompletedNamingTheTable() throws Exception {
        // The writer's creation is the next request (the client's health checks take no injected fault).
        both.server().faults().failNext(1, StatusCode.TableNotFound, "no region for this table");
        BulkStreamWriter w = both.db().bulkStreamWriter(CPU, BulkWrite.Config.newBuilder().build(),
                Context.newBuilder().build());
        try (w) {
            w.tableBufferRoot(10).addRow("h1", 0.5, 1_700_000_000_000L);
            CompletableFuture<Integer> first = w.writeNext();
            ExecutionException e = assertThrows(ExecutionException.class, () -> first.get(30, TimeUnit.SECONDS));
            BulkWriteException failed = (BulkWriteException) e.getCause();
            assertTrue(failed.getMessage().contains("could not create table 'opened_early'"), failed.getMessage());
            assertTrue(failed.getMessage().contains("no region for this table"), failed.getMessage());
            assertEquals(StatusCode.TableNotFound.code(), failed.err().code(), "the server's error is kept");

            w.tableBufferRoot(10).addRow("h2", 0.7, 1_700_000_000_001L);
            ExecutionException later = assertThrows(ExecutionException.class,
                    () -> w.writeNext().get(30, TimeUnit.SECONDS));
            assertTrue(later.getCause().getMessage().contains(failed.getMessage())
                    && later.getCause().getMessage().contains("open a new writer"),
                    "a later batch fails with the same cause, saying what to do: " + later.getCause().getMessage());

            BulkWriteException atEnd = assertThrows(BulkWriteException.class, w::completed);
            assertTrue(atEnd.getMessage().contains("could not create table 'opened_early'"), atEnd.getMessage());
        }
        assertEquals(List.of(), both.server().tables(), "tables stored");
        assertTrue(both.server().requests().stream().noneMatch(r -> r.method().equals("DoPut")),
                "nothing was sent on the bulk stream: " + both.server().requests());
    }
}
