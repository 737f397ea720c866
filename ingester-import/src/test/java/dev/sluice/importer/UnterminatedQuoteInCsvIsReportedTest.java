package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CSV file whose last quoted value is never closed is malformed: the rest of the file is not one value. The
 * import says so, naming the file and the line the quote opens on (as it does with --escape), instead of storing
 * the following records as the text of one value and reporting success.
 */
class UnterminatedQuoteInCsvIsReportedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void withoutEscape() throws Exception {
        Path f = dir.resolve("openquote.csv");
        Files.writeString(f, "id,ts,v\n1,1700000000001,a\n2,1700000000002,\"unterminated\n3,1700000000003,c\n4,1700000000004,d\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString()));
        if (testkit.server().tables().contains("openquote")) {
            for (Map<String, Object> row : testkit.server().rows("openquote")) {
                assertFalse(String.valueOf(row.get("v")).contains("1700000000003"),
                        "records after the open quote were stored as one value: " + row + "\n" + r);
            }
        }
        assertNotEquals(0, r.code(), r.toString());
        assertTrue(r.err().contains("openquote.csv") && r.err().contains("line 3"), r.err());
    }

    @Test
    void withEscapeForComparison() throws Exception {
        Path f = dir.resolve("openquote_esc.csv");
        Files.writeString(f, "id,ts,v\n1,1700000000001,a\n2,1700000000002,\"unterminated\n3,1700000000003,c\n4,1700000000004,d\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--escape", "\\", f.toString()));
        assertNotEquals(0, r.code(), r.toString());
        assertTrue(r.err().contains("openquote_esc.csv") && r.err().contains("line 3"), r.err());
    }
}
