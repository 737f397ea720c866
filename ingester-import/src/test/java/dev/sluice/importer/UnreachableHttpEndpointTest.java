package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Without the HTTP API the table cannot be looked up: the import fails naming the endpoint and writes nothing. */
class UnreachableHttpEndpointTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aWrongHttpEndpointFailsWithExit3BeforeAnythingIsSent() throws IOException {
        Path f = dir.resolve("nohttp.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000001\n");
        Cli.Run r = Cli.run("--endpoint", testkit.server().endpoint(), "--http-endpoint", "127.0.0.1:1",
                "--retry-deadline", "2", "--timeout", "3", f.toString());
        assertEquals(3, r.code(), r.toString());
        assertTrue(r.err().contains("127.0.0.1:1"), r.err());
        assertFalse(testkit.server().tables().contains("nohttp"));
    }
}
