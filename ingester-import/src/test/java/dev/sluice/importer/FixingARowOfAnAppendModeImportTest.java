package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An import into an append-mode table stops at a bad row and advises "Fix the row". Once the row is fixed the rerun
 * is refused (the file changed) with the advice to --restart, which on an append-mode table stores every row
 * before the bad one a second time. Rows are never duplicated silently: that advice must say so.
 */
class FixingARowOfAnAppendModeImportTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void theAdviceAfterTheFixWarnsOfDuplicates() throws Exception {
        Path f = dir.resolve("fixedrow.csv");
        StringBuilder sb = new StringBuilder("id,ts,v\n");
        for (int i = 1; i <= 50; i++) {
            sb.append(i).append(',').append(1_700_000_000_000L + i).append(',').append(i == 30 ? "bad" : "" + i).append('\n');
        }
        Files.writeString(f, sb.toString());
        String[] args = Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", "--with", "append_mode=true",
                "--batch", "10", f.toString());
        Cli.Run first = Cli.run(args);
        assertEquals(1, first.code(), first.toString());
        assertTrue(first.err().contains("Fix the row"), first.err());
        assertEquals(29, testkit.server().rowCount("fixedrow"));

        Files.writeString(f, sb.toString().replace(",bad\n", ",30\n"));
        Cli.Run fixed = Cli.run(args);
        assertEquals(2, fixed.code(), fixed.toString());
        String err = fixed.err().toLowerCase(Locale.ROOT);
        if (err.contains("--restart")) {
            assertTrue(err.contains("twice") || err.contains("duplicate") || err.contains("append"),
                    "--restart advised for an append-mode table without saying it stores the 29 acknowledged rows again: "
                            + fixed.err());
        }
    }
}
