package dev.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.TestCertificates;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchMainTest {
    @TempDir
    Path dir;

    @Test
    void allThreePathsRunOverTlsAgainstAnEndpointAndTheRowsAreCheckedOverHttp() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path ca = certs.ca();
        Path[] server = certs.leaf("server", "localhost", "dns:localhost,ip:127.0.0.1", true);
        try (GreptimeTestServer s = GreptimeTestServer.builder().tls(server[0], server[1], null).httpPort(0)
                .allowBulkAutoCreate(false).start()) {
            int code = new CommandLine(new BenchMain()).execute("--workload", "metrics", "--rows", "3000",
                    "--warmup-rows", "0", "--endpoint", s.endpoint(), "--http-endpoint", "http://" + s.httpEndpoint(),
                    "--tls-ca", ca.toString());
            assertEquals(0, code, "every mode acknowledged and stored its rows");
            assertEquals(3_000, s.rowCount("bench_metrics"), "the last mode's rows, counted by the server");
            assertTrue(s.requests().stream().anyMatch(r -> r.method().equals("DoPut")), "bulk went over TLS too");
        }
    }

    @Test
    void tlsWithoutAnEndpointIsRefused() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new BenchMain()).setErr(new PrintWriter(err)).execute("--tls", "--rows", "10");
        assertNotEquals(0, code);
        assertTrue(err.toString().contains("--tls and --tls-ca apply to --endpoint"), err.toString());
    }
}
