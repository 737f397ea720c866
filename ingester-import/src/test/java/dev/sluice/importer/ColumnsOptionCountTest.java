package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** --columns replacing a header's names must name as many columns as the header has. */
class ColumnsOptionCountTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void fewerNamesThanTheHeaderIsAUsageErrorBeforeATableIsCreated() throws IOException {
        Path f = dir.resolve("short_names.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000001\n2,2.5,1700000000002\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--columns", "a,b", f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertFalse(testkit.server().tables().contains("short_names"), "no table is created");
    }
}
