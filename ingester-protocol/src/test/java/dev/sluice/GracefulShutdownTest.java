package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code shutdownGracefully} waits for what is unanswered (regular writes, and stream messages, which are answered
 * when their stream is completed) and no longer: a writer left open with nothing unanswered does not hold it to
 * its timeout.
 */
class GracefulShutdownTest {
    static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    static GreptimeDB client(GreptimeTestServer server) {
        return GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
    }

    static long millisOf(Runnable r) {
        long t0 = System.nanoTime();
        r.run();
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void anOpenStreamWithNothingUnansweredDoesNotHoldTheShutdownToItsTimeout() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            StreamWriter<Table, WriteOk> done = db.streamWriter();
            done.write(Table.from(CPU).addRow("h", 1.0, 1L));
            assertEquals(1, done.completed().orTimeout(10, TimeUnit.SECONDS).join().affectedRows());
            StreamWriter<Table, WriteOk> idle = db.streamWriter(); // opened, never written
            // a timeout longer than the hang guard: a shutdown that waited it out would fail the guard
            boolean clean = Await.returns("a graceful shutdown with nothing unanswered",
                    () -> db.shutdownGracefully(Duration.ofMinutes(10)));
            assertTrue(clean, "nothing was unanswered");
            assertThrows(RuntimeException.class, () -> {
                idle.write(Table.from(CPU).addRow("h", 2.0, 2L));
                idle.completed().orTimeout(10, TimeUnit.SECONDS).join();
            }, "the idle stream is ended with its client");
            assertEquals(1, server.rowCount("cpu"));
        }
    }

    @Test
    void aStreamWithMessagesNotYetAnsweredHoldsTheShutdownToItsTimeoutAndThenFails() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            StreamWriter<Table, WriteOk> open = db.streamWriter();
            open.write(Table.from(CPU).addRow("h", 1.0, 1L)); // answered only when completed, which never comes
            boolean[] clean = new boolean[1];
            long took = millisOf(() -> clean[0] = Await.returns("a graceful shutdown of 2 s with a message unanswered",
                    () -> db.shutdownGracefully(Duration.ofSeconds(2))));
            assertFalse(clean[0], "a message was unanswered at the timeout");
            assertTrue(took >= 1_900, "waited its timeout for the unanswered message: " + took + " ms");
            assertThrows(RuntimeException.class, () -> open.completed().orTimeout(10, TimeUnit.SECONDS).join(),
                    "its message was cancelled, not confirmed");
        }
    }
}
