package dev.sluice.importer.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
 * {@code sluice import --connection}: a password the server rejects fails the import without printing it; a
 * password given beside the string and a hint the string carries are usage errors naming the options; nothing is
 * stored in any of these cases. As for the Kafka sink, the Flink connector and the Spark writer, the string supplies
 * what it names and only an option that sets the same thing is refused: {@code -u} and {@code -p} beside a string
 * that names no user are the credentials the server sees.
 */
class TheConnectionOptionIsCheckedLikeTheClientsStringTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0).user("admin", "Corr3ctHorse"));

    @TempDir
    Path dir;

    private Path csv() throws IOException {
        Path f = dir.resolve("conn.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000000\n2,2.5,1700000000001\n");
        return f;
    }

    private String connection(String password, String keys) {
        return "greptimedb://admin:" + password + "@" + testkit.server().endpoint() + "/public" + keys;
    }

    @Test
    void aRejectedPasswordFailsTheImportWithoutPrintingIt() throws IOException {
        Cli.Run r = Cli.run("--connection", connection("Wr0ngHorse", "?retry_attempts=1"), "--http-endpoint",
                testkit.server().httpEndpoint(), "--tags", "id", csv().toString());
        assertNotEquals(0, r.code(), r.toString());
        assertFalse(r.out().contains("Wr0ngHorse") || r.err().contains("Wr0ngHorse"), r.toString());
        assertEquals(0, testkit.server().rowCount("conn"));
    }

    @Test
    void aPasswordBesideTheStringIsRefusedNamingBothWithoutPrintingEither() throws IOException {
        Cli.Run r = Cli.run("--connection", connection("Corr3ctHorse", ""), "-p", "Other9Horse", csv().toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--password") && r.err().contains("--connection"), r.err());
        assertFalse(r.err().contains("Corr3ctHorse") || r.err().contains("Other9Horse"), r.err());
        assertEquals(0, testkit.server().rowCount("conn"));
    }

    @Test
    void aHintInTheStringIsRefusedPointingAtWith() throws IOException {
        Cli.Run r = Cli.run("--connection", connection("Corr3ctHorse", "?hint.ttl=7d"), csv().toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("hint.") && r.err().contains("--with"), r.err());
        assertEquals(0, testkit.server().rowCount("conn"));
    }

    @Test
    void credentialsBesideAStringThatNamesNoUserReachTheServer() throws IOException {
        Cli.Run r = Cli.run("--connection", "greptimedb://" + testkit.server().endpoint() + "/public?compression=zstd",
                "-u", "admin", "-p", "Corr3ctHorse", "--http-endpoint", testkit.server().httpEndpoint(), "--tags", "id",
                "--table", "besides", csv().toString());
        assertEquals(0, r.code(), r.toString());
        assertEquals(2, testkit.server().rowCount("besides"));
    }

    @Test
    void aUserBesideAStringThatNamesOneIsRefusedNamingBoth() throws IOException {
        Cli.Run r = Cli.run("--connection", connection("Corr3ctHorse", ""), "-u", "admin", csv().toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--user is given, and --connection sets it too (its user@)"), r.err());
        assertFalse(r.err().contains("Corr3ctHorse"), r.err());
    }
}
