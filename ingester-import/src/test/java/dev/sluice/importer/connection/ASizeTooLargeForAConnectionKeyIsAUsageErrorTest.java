package dev.sluice.importer.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A size too large for its key in {@code --connection} ({@code max_message_size=4GiB}) is a usage error (exit 2)
 * naming the key, before anything is read or sent, and without printing the string's password.
 */
class ASizeTooLargeForAConnectionKeyIsAUsageErrorTest {
    @TempDir
    Path dir;

    @Test
    void theImportStopsWithAUsageErrorNamingTheKey() throws IOException {
        Path csv = Files.writeString(dir.resolve("sizes.csv"), "id,v,ts\n1,1.5,1700000000000\n");
        Cli.Run r = Cli.run("--connection", "greptimedb://admin:Corr3ctHorse@127.0.0.1:1/public?max_message_size=4GiB",
                csv.toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("'max_message_size'"), r.err());
        assertFalse(r.err().contains("Corr3ctHorse"), r.err());
    }
}
