package dev.sluice.spark.paths;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.spark.internal.Metrics;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * When a bulk write of a column the path cannot carry reaches the connectors' shared session (planning is the first
 * check, this is the last), the session fails naming the table and the column as a refusal of the client, not as a
 * server that did not answer, and no write request is sent.
 */
class ASessionsBulkWriteOfAJsonColumnFailsAsTheClientsRefusalTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();
    private static final TableSchema DOCS = TableSchema.newBuilder("docs")
            .addColumn("host", SemanticType.Tag, DataType.String)
            .addColumn("attrs", SemanticType.Field, DataType.Json)
            .addColumn("ts", SemanticType.Timestamp, DataType.TimestampMillisecond).build();

    @Test
    void theFailureNamesTableAndColumnAndIsNotRetryable(GreptimeTestServer server)
            throws Exception {
        SinkSettings settings = new SinkSettings(List.of(server.endpoint()), "public", "", "", false, "", "", "", "",
                "UTC", Duration.ofSeconds(5), 2, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofSeconds(30),
                BatchingWriter.Path.Bulk, 1_000, 8 << 20, Duration.ofMillis(50), 1, 10_000, "none", Map.of(), "none",
                "", new SinkSettings.Wording("retry.timeout", "the job fails", "run it again"));
        String message;
        try (ClientSession session = ClientSession.open(settings, new Metrics(), true)) {
            // refused when the row is handed over, before anything of the table is buffered, or at the flush at the latest
            message = assertThrows(IOException.class, () -> {
                session.insert(DOCS, r -> r.setString(0, "a").setString(1, "{\"k\":1}").setLong(2, 1_000L));
                session.flush();
            }).getMessage();
        }
        assertTrue(message.contains("docs") && message.contains("attrs"), message);
        assertFalse(message.contains("UNAVAILABLE") || message.contains("table ?") || message.contains("retryable, but"),
                "a rule of the client is not a server that did not answer: " + message);
        Set<String> writes = Set.of("insert", "delete", "bulk");
        assertEquals(0, server.requests().stream().filter(r -> writes.contains(r.kind())).count(),
                () -> "no write request was sent: " + server.requests());
    }

}
