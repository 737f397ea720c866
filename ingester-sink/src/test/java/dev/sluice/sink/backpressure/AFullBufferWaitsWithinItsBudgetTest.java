package dev.sluice.sink.backpressure;

import static dev.sluice.sink.CpuRows.CPU;
import static dev.sluice.sink.CpuRows.storedHosts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeOptions;
import dev.sluice.sink.internal.Backpressure;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class AFullBufferWaitsWithinItsBudgetTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    GreptimeTestServer server;
    SinkClients clients;

    @BeforeEach
    void open() {
        server = testkit.server();
        server.clear();
        clients = SinkClients.open(GreptimeOptions.newBuilder(server.endpoint(), "public")
                        .requestTimeout(Duration.ofSeconds(30)).build(), Context.newBuilder().build(),
                BatchingWriter.Config.newBuilder().maxBatchRows(1).maxBufferedRows(1)
                        .maxBlock(Duration.ofMillis(20)).build());
    }

    @AfterEach
    void close() {
        server.faults().reset();
        clients.close(Duration.ofSeconds(1));
    }

    @Test
    void aBufferThatStaysFullEndsTheWaitWithWhatToDo() {
        server.faults().neverRespond(true);
        clients.writer().write(CPU, "h0", 1.0, 1_000L);
        AtomicInteger tries = new AtomicInteger();
        Backpressure wait = new Backpressure(Duration.ofMillis(100), "Check that GreptimeDB is reachable.");

        Backpressure.BufferStayedFull e = assertThrows(Backpressure.BufferStayedFull.class,
                () -> wait.write(() -> clients.writer().write(CPU, "h1", 1.0, 1_000L), tries::incrementAndGet));

        assertTrue(e.getMessage().startsWith("GreptimeDB did not take rows: "), e.getMessage());
        assertTrue(e.getMessage().endsWith("(tried again for 100 ms). Check that GreptimeDB is reachable."),
                e.getMessage());
        assertTrue(tries.get() >= 1);
    }

    @Test
    void aRowIsTakenOnceTheBufferHasRoom() {
        server.faults().latency(Duration.ofMillis(300));
        clients.writer().write(CPU, "h0", 1.0, 1_000L);
        Backpressure wait = new Backpressure(Duration.ofMinutes(5), "Check that GreptimeDB is reachable.");

        wait.write(() -> clients.writer().write(CPU, "h1", 1.0, 1_000L), () -> { });
        clients.writer().flushOrThrow(Duration.ofSeconds(30));

        assertEquals(List.of("h0", "h1"), storedHosts(server));
    }

    @Test
    void aFailureBetweenTriesEndsTheWait() {
        server.faults().neverRespond(true);
        clients.writer().write(CPU, "h0", 1.0, 1_000L);
        Backpressure wait = new Backpressure(Duration.ofMinutes(5), "Check that GreptimeDB is reachable.");

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> wait.write(
                () -> clients.writer().write(CPU, "h1", 1.0, 1_000L), () -> {
                    throw new IllegalStateException("an earlier batch failed");
                }));
        assertEquals("an earlier batch failed", e.getMessage());
    }
}
