package dev.sluice.sink.session;

import static dev.sluice.sink.CpuRows.CPU;
import static dev.sluice.sink.CpuRows.storedHosts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.write.StatusCode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Flink and Spark writers' session opens its client from {@link SinkSettings} the way every integration does,
 * and narrows a refused batch to its rows the way every integration does.
 */
class ASessionOpensThroughTheSharedClientsAndIsolatesThroughTheSharedIsolatorTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    GreptimeTestServer server;

    @BeforeEach
    void clear() {
        server = testkit.server();
        server.clear();
    }

    @AfterEach
    void reset() {
        server.faults().reset();
    }

    static SinkSettings settings(GreptimeTestServer server) {
        return new SinkSettings(List.of(server.endpoint()), "public", "", "", false, "", "", "", "", "UTC",
                Duration.ofSeconds(10), 1, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofSeconds(10),
                BatchingWriter.Path.Regular, 1_000, 8 << 20, Duration.ofHours(1), 1, 10_000, "none", Map.of(), "none",
                "", new SinkSettings.Wording("retry.timeout", "the job fails", "run it again"));
    }

    static final ClientSession.SinkMetrics NO_METRICS = new ClientSession.SinkMetrics() {
        @Override
        public MetricsSink clientSink() {
            return MetricsSink.NONE;
        }

        @Override
        public void batch() {
        }

        @Override
        public void failure() {
        }

        @Override
        public void inFlight(LongSupplier rows) {
        }
    };

    static void write(ClientSession session, int rows, int bad) throws Exception {
        for (int i = 0; i < rows; i++) {
            String host = i == bad ? "bad" : "h" + i;
            long ts = 1_000L + i;
            session.element(i + 1, host);
            session.insert(CPU, r -> r.setString(0, host).setDouble(1, 1.0).setLong(2, ts));
        }
    }

    @Test
    void everyRowOfARefusedBatchButTheRefusedOneIsStoredAndTheFailureNamesIt() throws Exception {
        server.faults().refuseValue("host", "bad", StatusCode.InvalidArguments, "Invalid value for column host: 'bad'");
        String message;
        try (ClientSession session = ClientSession.open(settings(server), NO_METRICS, true)) {
            write(session, 8, 2);
            message = assertThrows(IOException.class, session::flush).getMessage();
        }
        assertTrue(message.contains("GreptimeDB refused element 3 of this writer since it started: bad (table cpu,"
                + " column host): code 1004"), message);
        assertTrue(message.contains("(7 stored, 1 refused)"), message);
        assertEquals(List.of("h0", "h1", "h3", "h4", "h5", "h6", "h7"), storedHosts(server),
                "the rows after the refused one are stored too");
    }

    @Test
    void aConnectionStringsKeysTakeEffectThroughTheSession() throws Exception {
        SinkSettings s = settings(server).connect("greptimedb://" + server.endpoint()
                + "/public?batch_rows=2&hint.ttl=7d");
        assertEquals(2, s.batchRows());
        try (ClientSession session = ClientSession.open(s, NO_METRICS, true)) {
            write(session, 4, -1);
            session.flush();
        }
        List<RecordedRequest> inserts = server.requests().stream().filter(r -> r.kind().equals("insert")).toList();
        assertEquals(List.of(2, 2), inserts.stream().map(RecordedRequest::rows).toList());
        assertTrue(inserts.stream().allMatch(r -> "7d".equals(r.hints().get("ttl"))), inserts.toString());
        assertEquals(List.of("h0", "h1", "h2", "h3"), storedHosts(server));
    }

    @Test
    void aConnectionStringKeyNoSettingHoldsTakesEffectWhenTheSessionOpens() throws Exception {
        // max_message_size has no field of its own: the session's client gets it from the string when it opens,
        // and splits a regular write larger than it.
        SinkSettings s = settings(server).connect("greptimedb://" + server.endpoint() + "/public?max_message_size=2KiB");
        try (ClientSession session = ClientSession.open(s, NO_METRICS, true)) {
            write(session, 400, -1);
            session.flush();
        }
        long inserts = server.requests().stream().filter(r -> r.kind().equals("insert")).count();
        assertTrue(inserts > 1, "a 400-row batch over a 2 KiB limit is sent in several requests, got " + inserts);
        assertEquals(400, server.rowCount("cpu"));
    }
}
