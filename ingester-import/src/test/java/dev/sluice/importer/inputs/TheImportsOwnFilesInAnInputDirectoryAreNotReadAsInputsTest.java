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
 * "Run the same command again" (to resume, or to find nothing left to do) works when the state file lies in the
 * directory being imported with {@code --format csv}: the import never reads its own state file or its lock as a
 * CSV input. If such a place is refused, it is refused on the first run, before anything is written.
 */
class TheImportsOwnFilesInAnInputDirectoryAreNotReadAsInputsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void theSameCommandRunAgainFindsNothingLeftToDo() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Files.writeString(data.resolve("a.csv"), "ts,v\n1700000000000,1\n1700000000001,2\n");
        String[] args = Cli.at(testkit.server(), "--format", "csv", "--table", "own_files", "--state",
                data.resolve("import.state").toString(), data.toString());

        Cli.Run first = Cli.run(args);
        if (first.code() == 2) {
            assertTrue(first.err().contains("--state"), "a refusal names the option: " + first);
            assertTrue(!testkit.server().tables().contains("own_files"), "refused before anything is written");
            return;
        }
        assertEquals(0, first.code(), first.toString());
        Cli.Run again = Cli.run(args);

        assertEquals(0, again.code(), "the first run was accepted, the same command again reads the state file"
                + " as a CSV input: " + again);
        assertEquals(2, testkit.server().rows("own_files").size());
    }
}
