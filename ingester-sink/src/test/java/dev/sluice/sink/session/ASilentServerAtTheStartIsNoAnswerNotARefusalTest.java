package dev.sluice.sink.session;

import static dev.sluice.sink.CpuRows.CPU;
import static dev.sluice.sink.session.ASessionOpensThroughTheSharedClientsAndIsolatesThroughTheSharedIsolatorTest.NO_METRICS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.sink.CpuRows;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server that never answers the table creation a writer's start sends: the start fails after the attempts the
 * retry settings allow, saying no answer came from which endpoint, not that the server refused the start.
 */
class ASilentServerAtTheStartIsNoAnswerNotARefusalTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    GreptimeTestServer server;

    @BeforeEach
    void clear() {
        server = testkit.server();
        server.clear();
        CpuRows.warmUp(server);
    }

    @AfterEach
    void reset() {
        server.faults().reset();
    }

    @Test
    void theStartSaysNoAnswerCameWithinTheRequestTimeout() throws Exception {
        SinkSettings settings = new SinkSettings(List.of(server.endpoint()), "public", "", "", false, "", "", "", "",
                "UTC", Duration.ofSeconds(1), 2, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofMinutes(1),
                BatchingWriter.Path.Regular, 1_000, 8 << 20, Duration.ofHours(1), 1, 10_000, "none", Map.of(), "none",
                "", new SinkSettings.Wording("retry.timeout", "the job fails", "run it again"));
        String message;
        try (ClientSession session = ClientSession.open(settings, NO_METRICS, true)) {
            // An answered write first, so that the connection is up when the server turns silent.
            session.insert(CPU, r -> r.setString(0, "answered").setDouble(1, 1.0).setLong(2, 1_000L));
            session.flush();
            server.faults().neverRespond(true);
            message = assertThrows(IOException.class, () -> session.prepare(CPU)).getMessage();
        }
        assertEquals(2, server.requests().stream().filter(r -> r.kind().equals("ddl") && r.outcome() == null)
                .count(), "the table creation is sent as often as its attempts allow");
        assertTrue(message.contains("no answer within 1 s from " + server.endpoint()), message);
        assertTrue(message.contains("creating table cpu if missing"), message);
        assertFalse(message.contains("refused"), "a silent server refused nothing: " + message);
    }
}
