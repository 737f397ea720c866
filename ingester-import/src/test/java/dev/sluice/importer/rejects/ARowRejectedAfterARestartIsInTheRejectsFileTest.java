package dev.sluice.importer.rejects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every row an import rejects is in its rejects file. The file is not given a row it already holds again, but a
 * different row that happens to stand on the same line of an input edited and imported again with
 * {@code --restart} is another row: it is neither stored nor allowed to vanish from the rejects file.
 */
class ARowRejectedAfterARestartIsInTheRejectsFileTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void anotherBadRowOnTheSameLineOfTheEditedInputIsRecorded() throws Exception {
        Path csv = dir.resolve("edited.csv");
        Path rejects = dir.resolve("rejects.jsonl");
        String[] args = Cli.at(testkit.server(), "--types", "v:Int64", "--on-error", "skip", "--rejects",
                rejects.toString(), "--state", dir.resolve("edited.state").toString(), "--restart", csv.toString());
        Files.writeString(csv, "ts,v\n1700000000000,1\n1700000000001,oops\n");
        Cli.Run first = Cli.run(args);
        assertEquals(1, first.code(), first.toString());

        // The user edits the file: line 3 now holds another row, which is bad too.
        Files.writeString(csv, "ts,v\n1700000000000,1\n1700000000009,worse\n");
        Cli.Run second = Cli.run(args);
        assertEquals(1, second.code(), second.toString());
        List<Map<String, Object>> rows = testkit.server().rows("edited");
        assertEquals(1, rows.size(), "the row of 'worse' is not stored: " + rows);

        String recorded = Files.readString(rejects);
        assertTrue(recorded.contains("worse"), "the second run rejected '1700000000009,worse' (line 3) and the"
                + " rejects file does not hold it, because it holds the first run's line 3: " + recorded + "\n"
                + second);
    }
}
