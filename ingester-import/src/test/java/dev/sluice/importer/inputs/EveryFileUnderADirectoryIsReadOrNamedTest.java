package dev.sluice.importer.inputs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every data file a directory given as input holds is either imported or named, with the reason, on standard error
 * and in the summary: a subdirectory reached through a symbolic link, a link whose target is gone, and a file whose
 * name starts with a dot are no exception.
 */
class EveryFileUnderADirectoryIsReadOrNamedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private Cli.Run importDirectory(String table, Path data) {
        return Cli.run(Cli.at(testkit.server(), "--table", table, "--state", dir.resolve(table + ".state").toString(),
                "--summary-json", dir.resolve(table + ".json").toString(), data.toString()));
    }

    private Set<Object> ids(String table) {
        return testkit.server().rows(table).stream().map(m -> m.get("id")).collect(Collectors.toSet());
    }

    private String summary(String table) throws Exception {
        Path json = dir.resolve(table + ".json");
        return Files.exists(json) ? Files.readString(json) : "";
    }

    @Test
    void aCsvInASubdirectoryReachedThroughALinkIsReadOrNamed() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Files.writeString(data.resolve("a.csv"), "id,ts,v\na,1700000000000,1\n");
        Path archive = Files.createDirectory(dir.resolve("archive"));
        Files.writeString(archive.resolve("b.csv"), "id,ts,v\nb,1700000000001,2\n");
        Files.createSymbolicLink(data.resolve("2023"), archive);

        Cli.Run r = importDirectory("linked_subdir", data);

        boolean named = r.err().contains("2023") && summary("linked_subdir").contains("2023");
        assertTrue(ids("linked_subdir").contains("b") || named,
                "data/2023/b.csv is neither imported nor named as not read: stored ids " + ids("linked_subdir")
                        + ", summary " + summary("linked_subdir") + "\n" + r);
    }

    @Test
    void aLinkWhoseTargetIsGoneIsNamed() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Files.writeString(data.resolve("a.csv"), "id,ts,v\na,1700000000000,1\n");
        Files.createSymbolicLink(data.resolve("gone.csv"), dir.resolve("moved-away.csv"));

        Cli.Run r = importDirectory("broken_link", data);

        assertTrue(r.err().contains("gone.csv"), "the link data/gone.csv, whose file is missing, is not named: " + r);
    }

    @Test
    void aCsvWhoseNameStartsWithADotIsReadOrNamed() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Files.writeString(data.resolve("a.csv"), "id,ts,v\na,1700000000000,1\n");
        Files.writeString(data.resolve(".c.csv"), "id,ts,v\nc,1700000000002,3\n");

        Cli.Run r = importDirectory("dot_file", data);

        assertEquals(0, r.code(), r.toString());
        boolean named = r.err().contains(".c.csv") && summary("dot_file").contains(".c.csv");
        assertTrue(ids("dot_file").contains("c") || named,
                "data/.c.csv is neither imported nor named as not read (the glob 'data/*.csv' imports it): stored"
                        + " ids " + ids("dot_file") + ", summary " + summary("dot_file") + "\n" + r);
    }
}
