package dev.sluice.importer.collapse;

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

/** JSON Lines rows that share a time and have no tags collapse in the table: the import warns and offers --tags. */
class JsonLinesRowsSharingTimeAreWarnedOfTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void jsonLinesRowsSharingTimeWithoutTagsAreWarnedOf() throws Exception {
        Path f = dir.resolve("dev.jsonl");
        Files.writeString(f, "{\"device\":\"d1\",\"ts\":\"2024-05-01T10:00:00Z\",\"temp\":20.5}\n"
                + "{\"device\":\"d2\",\"ts\":\"2024-05-01T10:00:00Z\",\"temp\":21.5}\n"
                + "{\"device\":\"d3\",\"ts\":\"2024-05-01T10:00:00Z\",\"temp\":22.5}\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "jcollapse", "--state",
                dir.resolve("j.state").toString(), f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.err().contains("warning:") && r.err().contains("--tags device"), r.toString());
    }
}
