package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.TestCertificates;
import dev.sluice.write.StatusCode;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every key of the {@code connection} option's string takes effect, one family at a time (TLS, retries, compression,
 * batching), and an option beside the string that sets the same thing is refused, naming both.
 */
class ConnectionStringKeysTakeEffectTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    private static Dataset<Row> rows(int n) {
        return LocalSpark.session().sql("SELECT concat('h', CAST(id AS STRING)) AS host, CAST(id AS DOUBLE) AS v,"
                + " TIMESTAMP'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) AS ts FROM range(" + n + ")")
                .coalesce(1);
    }

    private static void save(Dataset<Row> df, String connection, String table, String... options) {
        var w = df.write().format("greptimedb").option("connection", connection).option("httpEndpoint", "none")
                .option("table", table).option("tags", "host");
        for (int i = 0; i < options.length; i += 2) {
            w = w.option(options[i], options[i + 1]);
        }
        w.mode("append").save();
    }

    private static List<RecordedRequest> inserts(GreptimeTestServer s, String table) {
        return s.requests().stream().filter(r -> r.kind().equals("insert") && r.tables().contains(table)).toList();
    }

    @Test
    void batchingKeysShapeTheRequests(GreptimeTestServer server) {
        save(rows(5), "greptimedb://" + server.endpoint() + "/public?batch_rows=2&flush_interval=1h", "batched");
        assertEquals(5, server.rowCount("batched"));
        List<RecordedRequest> reqs = inserts(server, "batched");
        // Batches in flight together may arrive in any order: the sizes are what batch_rows decides.
        assertEquals(List.of(2, 2, 1), reqs.stream().map(RecordedRequest::rows)
                .sorted(java.util.Comparator.reverseOrder()).toList(), reqs.toString());
    }

    @Test
    void compressionKeyIsSeenOnTheWire(GreptimeTestServer server) {
        save(rows(3), "greptimedb://" + server.endpoint() + "/public?compression=gzip", "gzipped");
        assertEquals(3, server.rowCount("gzipped"));
        List<RecordedRequest> reqs = inserts(server, "gzipped");
        assertTrue(!reqs.isEmpty() && reqs.stream().allMatch(r -> "gzip".equals(r.metadata().get("grpc-encoding"))),
                reqs.toString());
    }

    @Test
    void retryKeysDecideWhetherAFailedRequestIsTriedAgain(GreptimeTestServer server) {
        server.faults().failNext(1, StatusCode.RuntimeResourcesExhausted, "busy");
        try {
            Exception e = assertThrows(Exception.class, () -> save(rows(3),
                    "greptimedb://" + server.endpoint() + "/public?retry_attempts=1&request_timeout=5s", "once"));
            assertTrue(TablePlanningTest.rootMessage(e).contains("busy"), TablePlanningTest.rootMessage(e));
            assertEquals(0, server.rowCount("once"), "one attempt in all: the refused request is not sent again");
        } finally {
            server.faults().reset();
        }
        server.faults().failNext(1, StatusCode.RuntimeResourcesExhausted, "busy");
        try {
            save(rows(3), "greptimedb://" + server.endpoint() + "/public?retry_attempts=3&retry_backoff=10ms",
                    "retried");
            assertEquals(3, server.rowCount("retried"));
        } finally {
            server.faults().reset();
        }
    }

    @Test
    void tlsKeysReachAServerThatAsksForAClientCertificate(@TempDir Path dir) throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path ca = certs.ca();
        Path[] serverCert = certs.leaf("server", "localhost", "dns:localhost,ip:127.0.0.1", true);
        Path[] client = certs.leaf("client", "sluice-client", "dns:client", true);
        try (GreptimeTestServer tls = GreptimeTestServer.builder().tls(serverCert[0], serverCert[1], ca).start()) {
            save(rows(2), "greptimedb://localhost:" + tls.port() + "/public?tls=true&tls_ca=" + ca + "&tls_cert="
                    + client[0] + "&tls_key=" + client[1], "over_tls");
            assertEquals(2, tls.rowCount("over_tls"));
        }
    }

    @Test
    void anOptionBesideTheStringThatSetsTheSameThingIsRefusedNamingBoth(GreptimeTestServer server) {
        Exception e = assertThrows(Exception.class, () -> save(rows(1),
                "greptimedb://" + server.endpoint() + "/public?batch_rows=2", "twice", "batchRows", "10"));
        assertTrue(TablePlanningTest.rootMessage(e).contains("option 'batchRows' is set, and option 'connection' sets"
                + " it too (batch_rows): keep one of them"), TablePlanningTest.rootMessage(e));
        e = assertThrows(Exception.class, () -> save(rows(1),
                "greptimedb://" + server.endpoint() + "/public?batch_rows=none", "bad_value"));
        assertTrue(TablePlanningTest.rootMessage(e).contains("'batch_rows'"), TablePlanningTest.rootMessage(e));
        assertEquals(0, server.rowCount("twice") + server.rowCount("bad_value"));
    }
}
