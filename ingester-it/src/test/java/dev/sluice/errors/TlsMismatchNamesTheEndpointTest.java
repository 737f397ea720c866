package dev.sluice.errors;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.TlsConfig;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.TestCertificates;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteOk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on one side only, the other common set-up mistake beside a wrong port: the failure names the endpoint and
 * says TLS is the problem, in either direction.
 */
class TlsMismatchNamesTheEndpointTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private static Err write(GreptimeTestServer s, TlsConfig tls) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(s.endpoint(), "public").tls(tls)
                .retryPolicy(RetryPolicy.none()).requestTimeout(Duration.ofSeconds(5))
                .healthCheckInterval(Duration.ZERO).build());
        try {
            Result<WriteOk, Err> r = db.write(Table.from(CPU).addRow("a", 1.0, 1L)).join();
            assertFalse(r.isOk(), "stored across a TLS mismatch");
            return r.getErr();
        } finally {
            db.shutdownNow();
        }
    }

    @Test
    void aTlsClientAgainstAPlaintextServer(@TempDir Path dir) throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path ca = certs.ca();
        try (GreptimeTestServer s = GreptimeTestServer.start()) {
            Err err = write(s, TlsConfig.newBuilder().trustCertificates(ca).build());
            String said = err.toString();
            assertTrue(said.contains(s.endpoint()), "names the endpoint: " + said);
            assertTrue(said.toUpperCase(Locale.ROOT).contains("TLS"), "says TLS is the problem: " + said);
        }
    }

    @Test
    void aPlaintextClientAgainstATlsServer(@TempDir Path dir) throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        certs.ca();
        Path[] server = certs.leaf("server", "localhost", "dns:localhost,ip:127.0.0.1", true);
        try (GreptimeTestServer s = GreptimeTestServer.builder().tls(server[0], server[1], null).start()) {
            Err err = write(s, null);
            String said = err.toString();
            assertTrue(said.contains(s.endpoint()), "names the endpoint: " + said);
            assertTrue(said.toUpperCase(Locale.ROOT).contains("TLS"), "says TLS is the problem: " + said);
        }
    }
}
