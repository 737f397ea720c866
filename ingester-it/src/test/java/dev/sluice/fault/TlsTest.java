package dev.sluice.fault;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.StatusCode;
import dev.sluice.AuthInfo;
import dev.sluice.data.DataType;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.TlsConfig;
import dev.sluice.write.WriteOk;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scenario 6: TLS with a CA made in the test; plaintext, wrong and right client certificates. */
@SharesJvm
class TlsTest {
    @TempDir
    static Path dir;
    static Path ca;
    static Path[] server;
    static Path[] renamedServer;
    static Path[] client;
    static Path[] stranger;

    static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @BeforeAll
    static void certificates() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        ca = certs.ca();
        server = certs.leaf("server", "localhost", "dns:localhost,ip:127.0.0.1", true);
        renamedServer = certs.leaf("renamed", "greptime.internal", "dns:greptime.internal", true);
        client = certs.leaf("client", "sluice-client", "dns:client", true);
        stranger = certs.leaf("stranger", "stranger", "dns:stranger", false);
    }

    static Result<WriteOk, Err> write(GreptimeTestServer s, TlsConfig tls) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(s.endpoint(), "public")
                .tls(tls).retryPolicy(RetryPolicy.none()).requestTimeout(Duration.ofSeconds(5))
                .authInfo(new AuthInfo("u", "secret-password")).healthCheckInterval(Duration.ZERO).build());
        try {
            return db.write(Table.from(CPU).addRow("a", 1.0, 1L)).join();
        } finally {
            db.shutdownNow();
        }
    }

    @Test
    void tlsWithACustomCaWorksAndPlaintextFailsClearly() {
        try (GreptimeTestServer s = GreptimeTestServer.builder().user("u", "secret-password")
                .tls(server[0], server[1], null).start()) {
            Result<WriteOk, Err> ok = write(s, TlsConfig.newBuilder().trustCertificates(ca).build());
            assertTrue(ok.isOk(), ok::toString);
            Err plain = write(s, null).getErr();
            assertEquals(StatusCode.Grpc.UNAVAILABLE, plain.grpcCode());
            assertTrue(plain.message().contains("TLS"), plain.message());
            Err untrusted = write(s, TlsConfig.newBuilder().build()).getErr();
            assertEquals(StatusCode.Grpc.UNAVAILABLE, untrusted.grpcCode());
            assertEquals(1, s.rowCount("cpu"));
        }
    }

    @Test
    void mutualTlsNeedsACertificateFromTheTrustedCa() {
        try (GreptimeTestServer s = GreptimeTestServer.builder().tls(server[0], server[1], ca).start()) {
            assertFalse(write(s, TlsConfig.newBuilder().trustCertificates(ca).build()).isOk(), "no client certificate");
            Err wrong = write(s, TlsConfig.newBuilder().trustCertificates(ca).clientCertificate(stranger[0], stranger[1]).build()).getErr();
            assertEquals(StatusCode.Grpc.UNAVAILABLE, wrong.grpcCode());
            Result<WriteOk, Err> ok = write(s, TlsConfig.newBuilder().trustCertificates(ca).clientCertificate(client[0], client[1]).build());
            assertTrue(ok.isOk(), ok::toString);
            assertEquals(1, s.rowCount("cpu"));
        }
    }

    @Test
    void serverNameOverrideMatchesACertificateForAnotherName() {
        try (GreptimeTestServer s = GreptimeTestServer.builder().tls(renamedServer[0], renamedServer[1], null).start()) {
            assertFalse(write(s, TlsConfig.newBuilder().trustCertificates(ca).build()).isOk(), "127.0.0.1 is not in the certificate");
            Result<WriteOk, Err> ok = write(s, TlsConfig.newBuilder().trustCertificates(ca).serverNameOverride("greptime.internal").build());
            assertTrue(ok.isOk(), ok::toString);
        }
    }

    @Test
    void secretsNeverShowInToString() {
        TlsConfig tls = TlsConfig.newBuilder().trustCertificates(ca).clientCertificate(client[0], client[1]).build();
        String text = GreptimeOptions.newBuilder("h:1", "public").tls(tls)
                .authInfo(new AuthInfo("u", "secret-password")).build().toString();
        assertFalse(text.contains("secret-password"), text);
        assertFalse(text.contains("BEGIN"), text);
        assertTrue(text.contains("clientKey=****"), text);
    }

    @Test
    void largeBulkBatchesSentFromArrowMemoryArriveIntactOverTls() {
        TableSchema logs = TableSchema.newBuilder("tls_logs").addTag("host", DataType.String)
                .addField("message", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
        int rows = 2_000; // about 8 MB of text a batch: sent from Arrow memory through netty's TLS handler
        try (GreptimeTestServer s = GreptimeTestServer.builder().tls(server[0], server[1], null).start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(s.endpoint(), "public")
                    .tls(TlsConfig.newBuilder().trustCertificates(ca).build()).requestTimeout(Duration.ofSeconds(20))
                    .healthCheckInterval(Duration.ZERO).build());
            try (dev.sluice.bulk.BulkStreamWriter w = db.bulkStreamWriter(logs,
                    dev.sluice.bulk.BulkWrite.Config.newBuilder().build(), dev.sluice.write.Context.newBuilder().build())) {
                dev.sluice.bulk.TableBufferRoot batch = w.tableBufferRoot(rows);
                java.util.List<java.util.concurrent.CompletableFuture<Integer>> acks = new java.util.ArrayList<>();
                for (int b = 0; b < 3; b++) {
                    for (int i = b * rows; i < (b + 1) * rows; i++) {
                        batch.addRow("h" + (i % 3), (i + ":").repeat(500), 1_700_000_000_000L + i);
                    }
                    acks.add(w.writeNext());
                }
                for (var a : acks) {
                    assertEquals(rows, a.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join());
                }
                w.completed();
            } finally {
                db.shutdownNow();
            }
            java.util.List<java.util.Map<String, Object>> stored = s.rows("tls_logs");
            assertEquals(3 * rows, stored.size());
            for (java.util.Map<String, Object> r : stored) {
                String m = (String) r.get("message");
                String i = m.substring(0, m.indexOf(':'));
                assertEquals((i + ":").repeat(500), m);
                assertEquals("h" + (Integer.parseInt(i) % 3), r.get("host"));
            }
        }
    }
}
