package dev.sluice.sink.session;

import static dev.sluice.sink.session.ASessionOpensThroughTheSharedClientsAndIsolatesThroughTheSharedIsolatorTest.NO_METRICS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.StatusCode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A write the client refuses by its own rules (here a JSON column on the bulk path) is not a server that did not
 * answer: its error is not retryable, not UNAVAILABLE, names the table, and the session's failure says so, with no
 * write request sent.
 */
class AClientsOwnRefusalIsNeverARetryableUnavailableTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();
    private static final TableSchema DOCS = TableSchema.newBuilder("docs")
            .addColumn("host", SemanticType.Tag, DataType.String)
            .addColumn("attrs", SemanticType.Field, DataType.Json)
            .addColumn("ts", SemanticType.Timestamp, DataType.TimestampMillisecond).build();

    @Test
    void aJsonColumnOnTheBulkPathFailsTheSessionNamingTableAndColumnAsNotRetryable(GreptimeTestServer server)
            throws Exception {
        SinkSettings settings = new SinkSettings(List.of(server.endpoint()), "public", "", "", false, "", "", "", "",
                "UTC", Duration.ofSeconds(5), 2, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofSeconds(30),
                BatchingWriter.Path.Bulk, 1_000, 8 << 20, Duration.ofMillis(50), 1, 10_000, "none", Map.of(), "none",
                "", new SinkSettings.Wording("retry.timeout", "the job fails", "run it again"));
        String message;
        try (ClientSession session = ClientSession.open(settings, NO_METRICS, true)) {
            session.insert(DOCS, r -> r.setString(0, "a").setString(1, "{\"k\":1}").setLong(2, 1_000L));
            message = assertThrows(IOException.class, session::flush).getMessage();
        }
        assertTrue(message.contains("docs") && message.contains("attrs"), message);
        assertFalse(message.contains("UNAVAILABLE") || message.contains("table ?") || message.contains("retryable, but"),
                "a rule of the client is not a server that did not answer: " + message);
        Set<String> writes = Set.of("insert", "delete", "bulk");
        assertEquals(0, server.requests().stream().filter(r -> writes.contains(r.kind())).count(),
                () -> "no write request was sent: " + server.requests());
    }

    @Test
    void aRefusalTheClientRaisedIsReadAsNotRetryableNamingTheTable() {
        Err rule = SinkClients.errOf(new IllegalArgumentException("table 'docs', column 'attrs': Json columns cannot"
                + " be bulk written"), "docs");
        assertFalse(rule.retryable(), rule.toString());
        assertNotEquals(StatusCode.Grpc.UNAVAILABLE, rule.grpcCode(), rule.toString());
        assertEquals(ErrorKind.Setup, rule.kind(), rule.toString());
        assertEquals(List.of("docs"), rule.tables());

        Err value = SinkClients.errOf(new InvalidDataException("docs", "attrs", 1, "not JSON"), "docs");
        assertFalse(value.retryable(), value.toString());
        assertEquals(ErrorKind.Data, value.kind(), value.toString());
    }
}
