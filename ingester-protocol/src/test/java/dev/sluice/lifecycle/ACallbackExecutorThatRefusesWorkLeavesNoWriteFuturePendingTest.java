package dev.sluice.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.errors.StandardErrorCapture;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The application shuts its {@code callbackExecutor} down while a write is unanswered, so that executor refuses the
 * write's callbacks: the write's future must still complete (the refused callback runs on the thread handing it
 * over), its byte budget be given back, and the refusal be reported once at WARN saying what to do.
 */
class ACallbackExecutorThatRefusesWorkLeavesNoWriteFuturePendingTest {
    private static final TableSchema CPU = TableSchema.newBuilder("refused_callbacks").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    /** Far longer than a released answer takes to arrive, far shorter than any timeout of the client. */
    private static final long ANSWER_SECONDS = 15;

    private static Table rows(int from) {
        Table t = Table.from(CPU);
        for (int i = from; i < from + 10; i++) {
            t.addRow("h", i * 1.0, (long) i);
        }
        return t;
    }

    @Test
    void aRegularWriteCompletes() throws Exception {
        assertEveryRowStoredOnceTheRefusingExecutorLetsGo(db -> db.write(rows(0)).thenApply(r -> r.isOk()));
    }

    @Test
    void aStreamCompletes() throws Exception {
        assertEveryRowStoredOnceTheRefusingExecutorLetsGo(db -> {
            StreamWriter<Table, WriteOk> s = db.streamWriter();
            s.write(rows(0));
            return s.completed().thenApply(ok -> ok.affectedRows() == 10);
        });
    }

    private static void assertEveryRowStoredOnceTheRefusingExecutorLetsGo(
            Function<GreptimeDB, CompletableFuture<Boolean>> write) throws Exception {
        ExecutorService callbacks = Executors.newFixedThreadPool(2);
        try (GreptimeTestServer server = GreptimeTestServer.start();
             StandardErrorCapture log = new StandardErrorCapture()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .callbackExecutor(callbacks).build());
            try {
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER);
                CompletableFuture<Boolean> outcome = write.apply(db);
                server.faults().awaitHeld(1, Duration.ofSeconds(60));
                callbacks.shutdown();
                server.faults().release();
                assertEquals(true, outcome.get(ANSWER_SECONDS, TimeUnit.SECONDS), "the write succeeded");
                assertEquals(10, server.rowCount("refused_callbacks"));
                Await.until("the write's byte budget is given back", Duration.ofSeconds(ANSWER_SECONDS),
                        () -> db.stats().bytesInFlight() == 0);
                assertEquals(1, log.linesContaining("the callbackExecutor given in GreptimeOptions refused a task"),
                        log.text());
            } finally {
                db.shutdownNow();
                callbacks.shutdownNow();
            }
        }
    }
}
