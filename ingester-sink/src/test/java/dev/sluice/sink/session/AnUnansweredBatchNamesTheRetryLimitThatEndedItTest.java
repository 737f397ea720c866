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
 * A batch the server never answers fails once the client may send it no more: after the attempts its retry settings
 * allow, or when its retry timeout runs out, whichever comes first. The failure says which limits applied, and never
 * that the retry timeout ran out when the attempts ran out before it.
 */
class AnUnansweredBatchNamesTheRetryLimitThatEndedItTest {
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

    /** Settings with a request timeout of a second, the given attempts (0: until the retry timeout) and retry timeout. */
    private SinkSettings settings(int attempts, Duration retryTimeout) {
        return new SinkSettings(List.of(server.endpoint()), "public", "", "", false, "", "", "", "", "UTC",
                Duration.ofSeconds(1), attempts, Duration.ofMillis(10), Duration.ofMillis(10), retryTimeout,
                BatchingWriter.Path.Regular, 1_000, 8 << 20, Duration.ofHours(1), 1, 10_000, "none", Map.of(), "none",
                "", new SinkSettings.Wording("retry.timeout", "the job fails", "run it again"));
    }

    /**
     * Writes a row that is answered (so the connection is up), then one to a server that stops answering, and
     * returns the flush's failure.
     */
    private String failureOfAnUnansweredRow(SinkSettings settings) throws Exception {
        try (ClientSession session = ClientSession.open(settings, NO_METRICS, true)) {
            session.element(1, "answered");
            session.insert(CPU, r -> r.setString(0, "answered").setDouble(1, 1.0).setLong(2, 1_000L));
            session.flush();
            server.faults().neverRespond(true);
            session.element(2, "unanswered");
            session.insert(CPU, r -> r.setString(0, "unanswered").setDouble(1, 1.0).setLong(2, 2_000L));
            return assertThrows(IOException.class, session::flush).getMessage();
        }
    }

    /** @return the inserts the server received and never answered */
    private long unansweredInserts() {
        return server.requests().stream().filter(r -> r.kind().equals("insert") && r.outcome() == null).count();
    }

    @Test
    void aBatchWhoseAttemptsRanOutFirstIsNotReportedAsOutOfRetryTime() throws Exception {
        String message = failureOfAnUnansweredRow(settings(2, Duration.ofMinutes(1)));
        assertEquals(2, unansweredInserts(), "the batch is sent as often as its attempts allow, then fails");
        assertTrue(message.contains("no answer within 1 s from " + server.endpoint()), message);
        assertTrue(message.contains("at most 2 attempts within retry.timeout (60 s)"), message);
        assertFalse(message.contains("ran out"), "the retry timeout of a minute did not run out: " + message);
    }

    @Test
    void aBatchWithAttemptsUntilTheRetryTimeoutFailsWhenItRunsOut() throws Exception {
        String message = failureOfAnUnansweredRow(settings(0, Duration.ofMillis(2_500)));
        assertTrue(unansweredInserts() >= 2, "the batch is sent again until the retry timeout runs out, got "
                + unansweredInserts() + " requests");
        assertTrue(message.contains("no answer within 1 s from " + server.endpoint()), message);
        assertTrue(message.contains("until retry.timeout (2.5 s) ran out"), message);
    }
}
