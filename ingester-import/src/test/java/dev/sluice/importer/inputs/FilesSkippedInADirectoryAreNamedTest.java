package dev.sluice.importer.inputs;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * A directory given as input may hold files the import does not read (an extension it does not know): each is
 * named with the reason on standard error and in the summary, never left out without a word.
 */
class FilesSkippedInADirectoryAreNamedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aFileOfAnUnknownExtensionIsNamedOnStandardErrorAndInTheSummary() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Files.writeString(data.resolve("a.csv"), "id,ts,v\na,1700000000000,1\n");
        Files.writeString(data.resolve("b.txt"), "id,ts,v\nb,1700000000001,2\n");
        Path json = dir.resolve("summary.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "skipped_named", "--state",
                dir.resolve("s.state").toString(), "--summary-json", json.toString(), data.toString()));

        assertEquals(0, r.code(), r.toString());
        assertEquals(1, testkit.server().rows("skipped_named").size(), "a.csv is imported, b.txt is not");
        String txt = data.resolve("b.txt").toString();
        assertTrue(r.err().contains(txt) && r.err().contains("--format"), "stderr names the skipped file and the"
                + " way to read it: " + r);
        assertTrue(r.out().contains(txt), "the summary names the skipped file: " + r);
        String summary = Files.readString(json);
        assertTrue(summary.contains("\"skipped\"") && summary.contains(txt.replace("\\", "\\\\")), summary);
    }
}
