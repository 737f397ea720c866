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
 * lz4 is a bulk-path compression: on the default bulk path the import uses it, and with {@code --path regular} it
 * is a usage error naming it, as the Kafka sink refuses it.
 */
class ImportLz4FromTheConnectionStringTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void theImportStopsBeforeSendingNamingTheCompression() throws IOException {
        Path f = dir.resolve("lz.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000000\n");
        Cli.Run r = Cli.run("--connection", "greptimedb://" + testkit.server().endpoint() + "/public?compression=lz4",
                "--http-endpoint", testkit.server().httpEndpoint(), "--path", "regular", "--tags", "id", f.toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("lz4") && r.err().contains("compression"), r.err());
        assertEquals(0, testkit.server().rowCount("lz"));
    }

    @Test
    void lz4OnTheDefaultBulkPathImportsTheRows() throws IOException {
        Path f = dir.resolve("lzb.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000000\n2,2.5,1700000000001\n");
        Cli.Run r = Cli.run("--connection", "greptimedb://" + testkit.server().endpoint() + "/public?compression=lz4",
                "--http-endpoint", testkit.server().httpEndpoint(), "--tags", "id", f.toString());
        assertEquals(0, r.code(), r.toString());
        assertEquals(2, testkit.server().rowCount("lzb"));
    }
}
