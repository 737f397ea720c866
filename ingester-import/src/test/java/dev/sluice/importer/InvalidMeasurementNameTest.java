package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A line whose measurement cannot be a table name is a bad row under either policy, never a crash. */
class InvalidMeasurementNameTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void withSkipTheLineIsRejectedAndTheOtherMeasurementsAreWritten() throws IOException {
        Path f = dir.resolve("names.lp");
        Files.writeString(f, "bad\\ m,t=1 f=1 1700000000000000004\ngood_m,t=1 f=2 1700000000000000005\n");
        Path rejects = dir.resolve("names.rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--on-error", "skip", "--rejects", rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertFalse(r.err().contains("NullPointerException") || r.err().contains("Cannot invoke"), r.err());
        assertEquals(1, testkit.server().rowCount("good_m"), r.toString());
        assertEquals(2.0, testkit.server().rows("good_m").get(0).get("f"));
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("\"line\":1") && lines.get(0).contains("invalid table name"), lines.get(0));
    }

    @Test
    void withAbortTheImportStopsAtTheLineNamingIt() throws IOException {
        Path f = dir.resolve("names_abort.lp");
        Files.writeString(f, "bad\\ m,t=1 f=1 1700000000000000004\ngood_a,t=1 f=2 1700000000000000005\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("names_abort.lp' line 1: table 'bad m': invalid table name"), r.err());
        assertFalse(testkit.server().tables().contains("good_a"), "nothing after the bad line was sent");
    }
}
