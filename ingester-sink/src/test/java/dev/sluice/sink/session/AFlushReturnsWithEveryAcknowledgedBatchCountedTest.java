package dev.sluice.sink.session;

import static dev.sluice.sink.CpuRows.CPU;
import static dev.sluice.sink.session.ASessionOpensThroughTheSharedClientsAndIsolatesThroughTheSharedIsolatorTest.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.metrics.MetricsSink;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * When a flush returns, every batch it waited for is counted as acknowledged: an integration that reads its batch
 * count right after the flush (Spark reads a task's metrics as the task ends) sees every batch, not only those whose
 * completion callbacks happened to run before the flush woke up.
 */
class AFlushReturnsWithEveryAcknowledgedBatchCountedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    static final int FLUSHES = 2_000;

    @Test
    void everyBatchAFlushWaitedForIsCountedWhenItReturns() throws Exception {
        GreptimeTestServer server = testkit.server();
        server.clear();
        AtomicLong batches = new AtomicLong();
        ClientSession.SinkMetrics counting = new ClientSession.SinkMetrics() {
            @Override
            public MetricsSink clientSink() {
                return MetricsSink.NONE;
            }

            @Override
            public void batch() {
                batches.incrementAndGet();
            }

            @Override
            public void failure() {
            }

            @Override
            public void inFlight(LongSupplier rows) {
            }
        };
        try (ClientSession session = ClientSession.open(settings(server), counting, true)) {
            for (int i = 0; i < FLUSHES; i++) {
                long ts = 1_000L + i;
                session.element(i + 1, "h");
                session.insert(CPU, r -> r.setString(0, "h").setDouble(1, 1.0).setLong(2, ts));
                session.flush();
                assertEquals(i + 1, batches.get(), "batches counted when flush " + (i + 1) + " returned");
            }
        }
        assertEquals(FLUSHES, server.rowCount(CPU.tableName()), "rows stored");
    }
}
