package dev.sluice.importer.collapse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows that share tags and time index are stored once by an ordinary table (the last wins). When the sampled rows
 * hold such rows the import says so before anything is written, dry run included, names the columns that tell
 * them apart and offers --tags; its summary counts rows acknowledged, never rows stored. An append-mode table
 * keeps every row and is not warned of.
 */
class RowsSharingTagsAndTimeAreWarnedOfTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private Path devices() throws Exception {
        Path csv = dir.resolve("devices.csv");
        Files.writeString(csv, "device,ts,temp\n"
                + "d1,2024-05-01T10:00:00Z,20.5\n"
                + "d2,2024-05-01T10:00:00Z,21.5\n"
                + "d3,2024-05-01T10:00:00Z,22.5\n");
        return csv;
    }

    @Test
    void threeDevicesAtOneTimeWithoutTagsAreWarnedOfAndTheSummarySaysAcknowledged() throws Exception {
        Path csv = devices();
        Path json = dir.resolve("summary.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "collapsed", "--state", dir.resolve("s.state").toString(),
                "--summary-json", json.toString(), csv.toString()));

        assertEquals(1, testkit.server().rows("collapsed").size(), "the table keeps one of the three rows");
        assertTrue(r.err().contains("warning:") && r.err().contains("'device'") && r.err().contains("--tags device"),
                "stderr names the column that tells the rows apart and offers --tags: " + r);
        assertTrue(r.out().contains("3 written (acknowledged)"), r.toString());
        assertTrue(r.out().contains("keeps only the last"), "the summary says equal tags and time keep the last: " + r);
        String summary = Files.readString(json);
        assertTrue(summary.contains("\"warnings\"") && summary.contains("--tags device"), summary);
    }

    @Test
    void theDryRunWarnsToo() throws Exception {
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "collapsed_dry", "--dry-run", devices().toString()));

        assertEquals(0, r.code(), r.toString());
        assertTrue(r.err().contains("--tags device"), r.toString());
        assertFalse(testkit.server().tables("public").contains("collapsed_dry"), "a dry run creates nothing");
    }

    @Test
    void withTheTagsOrAnAppendModeTableThereIsNoWarning() throws Exception {
        Path csv = devices();
        Cli.Run tagged = Cli.run(Cli.at(testkit.server(), "--table", "tagged", "--tags", "device", "--state",
                dir.resolve("t.state").toString(), csv.toString()));
        assertEquals(0, tagged.code(), tagged.toString());
        assertEquals(3, testkit.server().rows("tagged").size());
        assertFalse(tagged.err().contains("warning:"), tagged.toString());

        Cli.Run kept = Cli.run(Cli.at(testkit.server(), "--table", "kept_all", "--with", "append_mode=true", "--state",
                dir.resolve("k.state").toString(), csv.toString()));
        assertEquals(0, kept.code(), kept.toString());
        assertEquals(3, testkit.server().rows("kept_all").size());
        assertFalse(kept.err().contains("warning:"), kept.toString());
    }
}
