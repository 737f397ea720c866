package dev.sluice.importer.collapse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warning of rows that collapse into one is given only for rows the table does store as one: a row whose tag is
 * NULL (an empty CSV value) and a row whose tag is the text "NULL" are two series, both stored, and the import must
 * not tell the user that one is "acknowledged as written but not stored" nor advise more tags.
 */
class ANullTagAndTheTextNullAreTwoSeriesTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void noCollapseIsWarnedOfAndBothRowsAreStored() throws Exception {
        Path csv = dir.resolve("null_tag.csv");
        Files.writeString(csv, "ts,device,v\n2024-01-01T10:00:00Z,,1\n2024-01-01T10:00:00Z,NULL,2\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "device", "--state",
                dir.resolve("s.state").toString(), csv.toString()));

        assertEquals(0, r.code(), r.toString());
        assertEquals(2, testkit.server().rows("null_tag").size(), "both rows are stored");
        assertFalse(r.err().contains("not stored"), "a collapse is warned of where the table keeps both rows: " + r);
    }
}
