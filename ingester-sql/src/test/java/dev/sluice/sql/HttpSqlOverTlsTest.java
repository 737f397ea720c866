package dev.sluice.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.sluice.testkit.TestCertificates;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An {@code https} endpoint: trusted through the CA certificate given to the builder, refused without it. */
class HttpSqlOverTlsTest {
    @Test
    void anHttpsEndpointIsReachedWithTheGivenCaAndRefusedWithoutIt(@TempDir Path dir) throws Exception {
        Path[] server = new TestCertificates(dir).leaf("sql", "localhost", "dns:localhost", false);
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("sql.p12"))) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        HttpsServer https = HttpsServer.create(new InetSocketAddress(0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        AtomicReference<String> asked = new AtomicReference<>();
        https.createContext("/v1/sql", ex -> {
            String form = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            asked.set(ex.getRequestMethod() + " " + ex.getRequestURI().getQuery() + " "
                    + URLDecoder.decode(form, StandardCharsets.UTF_8) + " " + ex.getRequestHeaders().getFirst("Authorization"));
            byte[] body = ("{\"output\":[{\"records\":{\"schema\":{\"column_schemas\":[{\"name\":\"count(*)\","
                    + "\"data_type\":\"Int64\"}]},\"rows\":[[42]]}}],\"execution_time_ms\":1}")
                    .getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        https.start();
        try {
            String endpoint = "https://localhost:" + https.getAddress().getPort();
            HttpSql trusted = HttpSql.newBuilder(endpoint, "metrics").auth("u", "p").trustedCa(server[0]).build();
            assertEquals(42, trusted.count("cpu"));
            assertEquals("POST db=metrics sql=SELECT count(*) FROM `cpu` Basic dTpw", asked.get());

            HttpSql untrusted = HttpSql.newBuilder(endpoint, "metrics").build();
            SqlException e = assertThrows(SqlException.class, () -> untrusted.count("cpu"));
            assertTrue(e.getMessage().contains(endpoint), e.getMessage());
        } finally {
            https.stop(0);
        }
    }
}
