package dev.sluice.importer.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --connection}'s compression is read by the client's rule: its case does not matter, and an unknown name
 * is a usage error naming the key, before anything is sent.
 */
class TheConnectionStringsCompressionMeansWhatTheClientSaysTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private Path csv() throws IOException {
        Path f = dir.resolve("zc.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000000\n2,2.5,1700000000001\n");
        return f;
    }

    @Test
    void anUpperCaseNameIsAccepted() throws IOException {
        Cli.Run r = Cli.run("--connection", "greptimedb://" + testkit.server().endpoint() + "/public?compression=ZSTD",
                "--http-endpoint", testkit.server().httpEndpoint(), "--tags", "id", csv().toString());
        assertEquals(0, r.code(), r.toString());
        assertEquals(2, testkit.server().rowCount("zc"));
    }

    @Test
    void anUnknownNameIsAUsageErrorNamingTheKey() throws IOException {
        long before = testkit.server().requestCount();
        Cli.Run r = Cli.run("--connection", "greptimedb://" + testkit.server().endpoint()
                + "/public?compression=snappy", "--http-endpoint", testkit.server().httpEndpoint(), csv().toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("'compression'") && r.err().contains("snappy"), r.err());
        assertEquals(before, testkit.server().requestCount());
    }
}
