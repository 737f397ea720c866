package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * --max-errors at its bounds with --on-error skip: 0 stops at the first rejected row (it alone in the rejects file,
 * nothing after it sent), the largest long never stops, and a number beyond a long is a usage error.
 */
class MaxErrorsBoundsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private Path file(String name) throws Exception {
        StringBuilder sb = new StringBuilder("id,ts,v\n");
        for (int i = 1; i <= 40; i++) {
            sb.append(i).append(',').append(1_700_000_000_000L + i).append(',').append(i % 10 == 5 ? "bad" : "" + i).append('\n');
        }
        Path f = dir.resolve(name + ".csv");
        Files.writeString(f, sb.toString());
        return f;
    }

    @Test
    void zeroStopsAtTheFirstRejectedRow() throws Exception {
        Path f = file("maxzero");
        Path rej = dir.resolve("maxzero.rej");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", "--batch", "2", "--on-error",
                "skip", "--max-errors", "0", "--rejects", rej.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        List<String> lines = Files.readAllLines(rej);
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("\"line\":6"), lines.get(0));
        assertEquals(4, testkit.server().rowCount("maxzero"), "rows after the stop were sent");
        assertTrue(r.err().contains("--max-errors") && r.err().contains("line 6"), r.err());
    }

    @Test
    void theLargestLongNeverStops() throws Exception {
        Path f = file("maxhuge");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", "--on-error", "skip",
                "--max-errors", Long.toString(Long.MAX_VALUE), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertEquals(36, testkit.server().rowCount("maxhuge"));
    }

    @Test
    void beyondALongIsAUsageError() throws Exception {
        Path f = file("maxbeyond");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--on-error", "skip", "--max-errors",
                "99999999999999999999", f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--max-errors"), r.err());
    }
}
