package dev.sluice.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import org.junit.jupiter.api.Test;

class ExamplesTest {
    @Test
    void regularWriteExampleLeavesTwoRowsOnItsEmbeddedTestkit() {
        assertEquals(2, RegularWriteExample.run(new String[0]));
    }

    @Test
    void regularWriteExampleRunsAgainstAnEndpoint() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            RegularWriteExample.run(new String[] {"--endpoint", server.endpoint()});
            assertEquals(2, server.rowCount("example_cpu"));
            assertEquals(0.99, server.rows("example_cpu").get(1).get("usage"));
        }
    }
}
