package dev.sluice.importer.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * The connection string's {@code compression=lz4} beside {@code --path regular} is a usage error whose next step is
 * one the import takes: {@code --path bulk} (the import refuses the string's {@code write_path} key), or another
 * compression.
 */
class Lz4BesideTheRegularPathPointsAtThePathOptionTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void theRefusalNamesThePathOption() throws IOException {
        Path f = dir.resolve("lzr.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000000\n");
        Cli.Run r = Cli.run("--connection", "greptimedb://" + testkit.server().endpoint() + "/public?compression=lz4",
                "--http-endpoint", testkit.server().httpEndpoint(), "--path", "regular", "--tags", "id", f.toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--path"), "the next step names --path: " + r.err());
        assertFalse(r.err().contains("write_path"), "the import refuses write_path, so it is no next step: " + r.err());
    }
}
