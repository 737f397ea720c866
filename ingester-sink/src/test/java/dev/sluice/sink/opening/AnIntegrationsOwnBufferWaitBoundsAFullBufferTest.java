package dev.sluice.sink.opening;

import static dev.sluice.sink.CpuRows.CPU;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.BatchingWriter;
import dev.sluice.LimitExceededException;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An integration with its own setting of how long a write waits for room in a full buffer (Kafka's
 * {@code max.block.ms}) opens its clients from {@link SinkSettings} with that wait, not the request timeout.
 */
class AnIntegrationsOwnBufferWaitBoundsAFullBufferTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    @Test
    void aWriteIntoAFullBufferGivesUpAfterTheIntegrationsWaitNotTheRequestTimeout() {
        GreptimeTestServer server = testkit.server();
        server.clear();
        SinkSettings settings = new SinkSettings(List.of(server.endpoint()), "public", "", "", false, "", "", "", "",
                "UTC", Duration.ofHours(1), 1, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofHours(1),
                BatchingWriter.Path.Regular, 1, 8 << 20, Duration.ofHours(1), 1, 1, "none", Map.of(), "none", "",
                new SinkSettings.Wording("retry.timeout", "the job fails", "run it again"));
        SinkClients clients = SinkClients.open(settings, MetricsSink.NONE, true, Duration.ofMillis(20));
        try {
            server.faults().neverRespond(true);
            clients.writer().write(CPU, "h0", 1.0, 1_000L);

            assertThrows(LimitExceededException.class, () -> clients.writer().write(CPU, "h1", 1.0, 1_000L));
        } finally {
            server.faults().reset();
            clients.close(Duration.ofSeconds(1));
        }
    }
}
