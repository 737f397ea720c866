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

/**
 * {@code --connection} takes the client's connection string for the target: hosts, database and credentials come
 * from it, and a target option given as well is refused naming both, without showing the password.
 */
class ConnectionStringTargetTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0).user("admin", "s3cret"));

    @TempDir
    Path dir;

    private Path csv() throws IOException {
        Path f = dir.resolve("m.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000000\n2,2.5,1700000000001\n");
        return f;
    }

    private String connection(String database, String keys) {
        return "greptimedb://admin:s3cret@" + testkit.server().endpoint() + "/" + database + keys;
    }

    @Test
    void theStringsHostDatabaseAndCredentialsReachTheServer() throws IOException {
        testkit.server().createDatabase("metrics");
        Cli.Run r = Cli.run("--connection", connection("metrics", "?compression=zstd&request_timeout=20s"),
                "--http-endpoint", testkit.server().httpEndpoint(), "--tags", "id", csv().toString());
        assertEquals(0, r.code(), r.toString());
        assertEquals(2, testkit.server().rowCount("metrics", "m"));
    }

    @Test
    void aTargetOptionGivenBesideTheStringIsRefusedNamingBoth() throws IOException {
        Cli.Run r = Cli.run("--connection", connection("public", ""), "-d", "public", csv().toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--database is given, and --connection sets it too"), r.err());
        assertFalse(r.err().contains("s3cret"), r.err());
        r = Cli.run("--connection", connection("public", "?batch_rows=10"), csv().toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("'batch_rows'") && r.err().contains("--batch"), r.err());
        r = Cli.run("--connection", connection("public", "?request_timeout=soon"), csv().toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("'request_timeout'"), r.err());
        assertFalse(r.err().contains("s3cret"), r.err());
    }
}
