package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
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
 * A measurement holding a dot or a hash names one table of the target database, as written (a dot does not pick
 * another database); and a directory of line protocol files names the files it does not read.
 */
class MeasurementsWithDotsAndHashesNameOneTableTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aDottedMeasurementIsOneTableOfTheTargetDatabase() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "dots",
                "sys.cpu,host=a v=1 1\nm#2,host=a v=2 2\n".getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        assertTrue(testkit.server().tables("public").contains("sys.cpu"), testkit.server().tables("public") + "\n" + r);
        assertTrue(testkit.server().tables("public").contains("m#2"), testkit.server().tables("public") + "\n" + r);
        assertEquals(1, testkit.server().rows("public", "sys.cpu").size());
    }

    @Test
    void aDirectoryOfLineProtocolFilesNamesTheFileItSkips() throws Exception {
        Path d = Files.createDirectory(dir.resolve("lpdir"));
        Files.writeString(d.resolve("a.lp"), "lpdir v=1 1\n");
        Files.writeString(d.resolve("notes.md"), "lpdir v=2 2\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--format", "lp", "--state", dir.resolve("d.state").toString(),
                d.toString()));
        assertEquals(0, r.code(), r.toString());
        int stored = testkit.server().rows("lpdir").size();
        assertTrue(stored == 2 || r.err().contains("notes.md"), "stored " + stored + ": " + r);
    }
}
