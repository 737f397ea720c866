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
 * {@code sluice import --connection} keeps the rule of the Kafka sink, the Flink connector and the Spark writer: the
 * string supplies what it names, and only an option that sets the same thing is refused. Credentials given with
 * {@code -u} and {@code -p} beside a string that names no user are the ones the server sees; beside a string that
 * names a user they are a usage error naming both.
 */
class AnOptionTheStringDoesNotSetStandsBesideItTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0).user("admin", "Corr3ctHorse"));

    @TempDir
    Path dir;

    private Path csv(String table) throws IOException {
        return Files.writeString(dir.resolve(table + ".csv"), "id,v,ts\n1,1.5,1700000000000\n2,2.5,1700000000001\n");
    }

    @Test
    void credentialsBesideAStringThatNamesNoUserReachTheServer() throws IOException {
        Cli.Run r = Cli.run("--connection", "greptimedb://" + testkit.server().endpoint() + "/public?compression=zstd",
                "-u", "admin", "-p", "Corr3ctHorse", "--http-endpoint", testkit.server().httpEndpoint(), "--tags", "id",
                csv("besides").toString());
        assertEquals(0, r.code(), r.toString());
        assertEquals(2, testkit.server().rowCount("besides"));
    }

    @Test
    void aUserBesideAStringThatNamesOneIsRefusedNamingBoth() throws IOException {
        Cli.Run r = Cli.run("--connection", "greptimedb://admin:Corr3ctHorse@" + testkit.server().endpoint() + "/public",
                "-u", "admin", csv("twice").toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--user is given, and --connection sets it too (its user@)"), r.err());
        assertFalse(r.err().contains("Corr3ctHorse"), r.err());
        assertEquals(0, testkit.server().tables().stream().filter("twice"::equals).count());
    }
}
