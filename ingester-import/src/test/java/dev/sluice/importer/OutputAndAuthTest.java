package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Progress lines, --quiet, CSV comments and column names, and basic auth on both of the server's APIs. */
class OutputAndAuthTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0).user("admin", "s3cret"));

    @TempDir
    Path dir;

    Path csv(String name, int rows) throws IOException {
        StringBuilder sb = new StringBuilder("# exported by a tool\nid,v,ts\n");
        for (int i = 0; i < rows; i++) {
            sb.append(i).append(',').append(i).append(',').append(1_700_000_000_000L + i).append('\n');
            if (i == 2) {
                sb.append("# a comment between rows\n");
            }
        }
        Path f = dir.resolve(name + ".csv");
        Files.writeString(f, sb.toString());
        return f;
    }

    @Test
    void withoutATerminalProgressIsPlainLinesAndQuietPrintsNothing() throws IOException {
        Path f = csv("progress", 2_000);
        testkit.server().faults().bulkAckDelay(Duration.ofMillis(400));
        try {
            Cli.Run r = Cli.run(Cli.at(testkit.server(), "-u", "admin", "-p", "s3cret", "--comment", "#", "--tags", "id",
                    "--batch", "200", "--in-flight", "1", "--progress-interval", "1", f.toString()));
            assertEquals(0, r.code(), r.toString());
            assertTrue(r.err().contains("inputs 0/1, rows "), r.err());
            assertFalse(r.err().contains("\r"), "no carriage returns when output is not a terminal");
            assertTrue(r.out().contains("2,000 rows read, 2,000 written"), r.out());
            Cli.Run q = Cli.run(Cli.at(testkit.server(), "-u", "admin", "-p", "s3cret", "--comment", "#", "--tags", "id",
                    "--batch", "200", "--in-flight", "1", "--progress-interval", "1", "--restart", "-q", f.toString()));
            assertEquals(0, q.code(), q.toString());
            assertEquals("", q.out());
            assertEquals("", q.err());
        } finally {
            testkit.server().faults().reset();
        }
        assertEquals(2_000, testkit.server().rowCount("progress"));
    }

    @Test
    void commentLinesAreSkippedAndColumnsCanBeNamedForAFileWithoutHeader() throws IOException {
        Path f = dir.resolve("noheader.csv");
        Files.writeString(f, "# two rows\na,1.5,2024-01-01T00:00:00Z\nb,2.5,2024-01-01T00:00:01Z\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-u", "admin", "-p", "s3cret", "--no-header", "--comment", "#",
                "--columns", "k,v,ts", "--tags", "k", f.toString()));
        assertEquals(0, r.code(), r.toString());
        List<Map<String, Object>> rows = testkit.server().rows("noheader");
        assertEquals(List.of("a", "b"), rows.stream().map(m -> m.get("k")).toList());
        assertEquals(List.of(1.5, 2.5), rows.stream().map(m -> m.get("v")).toList());
    }

    @Test
    void aWrongPasswordFailsWithExit3AndWritesNothing() throws IOException {
        Path f = csv("denied", 3);
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-u", "admin", "-p", "wrong", "--comment", "#", f.toString()));
        assertEquals(3, r.code(), r.toString());
        assertFalse(testkit.server().tables().contains("denied"));
    }
}
