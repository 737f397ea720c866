package dev.sluice.importer.lineprotocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A line rejected because a field's value does not fit its column is named as CSV and JSON rows are: the rejects
 * file gives its {@code column}, and the reason speaks of the file's line, never of a row inside an internal batch
 * ("row 1" for line 2) nor of a Java class to use.
 */
class RejectedLinesNameTheirColumnInTheUsersTermsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private static final Pattern BATCH_ROW = Pattern.compile("\\brow \\d+\\b");

    @Test
    void aNegativeIntegerForAnUnsignedColumnIsRejectedNamingLineAndColumn() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "negu.lp",
                "negu,id=1 u=5u 1\nnegu,id=2 u=-5i 2\nnegu,id=3 u=6u 3\n");
        assertEquals(1, r.run().code(), r.run().toString());
        List<Map<String, Object>> rows = LineProtocolRuns.rows(testkit.server(), "negu");
        assertEquals(List.of("1", "3"), rows.stream().map(m -> m.get("id")).toList(), rows.toString());
        assertEquals(1, r.rejects().size(), r.rejects().toString());
        String rej = r.rejects().get(0);
        assertTrue(rej.contains("\"line\":2"), rej);
        assertTrue(rej.contains("\"column\":\"u\""), "the rejects file names the column, as for CSV rows: " + rej);
        assertFalse(BATCH_ROW.matcher(rej).find(), "a batch's row, not the input's line: " + rej);
        assertFalse(rej.contains("BigInteger"), "a Java class is no advice to a command's user: " + rej);
        assertFalse(BATCH_ROW.matcher(r.run().err()).find(), r.run().err());
    }
}
