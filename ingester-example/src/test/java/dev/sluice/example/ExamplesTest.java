package dev.sluice.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import org.junit.jupiter.api.Test;

/** Every example runs against the embedded testkit, so none of them rots. */
class ExamplesTest {
    @Test
    void regularWriteExampleLeavesTwoRows() {
        assertEquals(2, RegularWriteExample.run(new String[0]));
    }

    @Test
    void regularWriteExampleRunsAgainstAGivenEndpoint() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            assertEquals(-1, RegularWriteExample.run(new String[] {"--endpoint", server.endpoint()}));
            assertEquals(2, server.rowCount("example_cpu"));
            assertEquals(0.99, server.rows("example_cpu").get(1).get("usage"));
        }
    }

    @Test
    void streamWriteExampleIsAcknowledgedInOneAnswer() {
        assertEquals(1_000, StreamWriteExample.run(new String[0]));
    }

    @Test
    void bulkWriteExampleWritesFiveCompressedBatches() {
        assertEquals(50_000, BulkWriteExample.run(new String[0]));
    }

    @Test
    void batchingWriterExampleStoresEveryRow() throws Exception {
        assertEquals(40_000, BatchingWriterExample.run(new String[0]));
    }

    @Test
    void hintsExampleKeepsDuplicatesInAppendMode() {
        assertEquals(2, HintsExample.run(new String[0]));
    }

    @Test
    void multiEndpointExampleSurvivesLosingAnEndpoint() {
        assertEquals(20, MultiEndpointExample.run(new String[0]));
    }

    @Test
    void authTlsExampleWritesOverTlsWithAUser() throws Exception {
        assertEquals(1, AuthTlsExample.run(new String[0]));
    }
}
