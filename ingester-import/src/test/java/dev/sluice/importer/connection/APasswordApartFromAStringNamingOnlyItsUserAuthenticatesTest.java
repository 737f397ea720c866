package dev.sluice.importer.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * A connection string may name its user without a password ({@code greptimedb://user@host}), keeping the password
 * out of the string (and out of a process list): --password beside such a string sets nothing the string sets, so
 * it is the password the server sees, not a clash.
 */
class APasswordApartFromAStringNamingOnlyItsUserAuthenticatesTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0).user("admin", "Corr3ctHorse"));

    @TempDir
    Path dir;

    @Test
    void thePasswordOptionAuthenticatesTheStringsUser() throws IOException {
        Path csv = dir.resolve("apart.csv");
        Files.writeString(csv, "id,v,ts\n1,1.5,1700000000000\n2,2.5,1700000000001\n");
        Cli.Run r = Cli.run("--connection", "greptimedb://admin@" + testkit.server().endpoint() + "/public",
                "-p", "Corr3ctHorse", "--http-endpoint", testkit.server().httpEndpoint(), "--tags", "id",
                "--table", "apart", csv.toString());
        assertEquals(0, r.code(), r.toString());
        assertEquals(2, testkit.server().rowCount("apart"));
    }
}
