package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A column inferred from the sample as Int64 meets 1.5 after the sample. The row is not wrong, the inferred type
 * is: the message that stops the import says what to do next, a --types override for the column or a larger
 * --sample, not only "Fix the row, or rerun with --on-error skip" (which drops every such row).
 */
class AbortAtAValueBeyondTheSampledTypeAdvisesTheTypeTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void csv() throws Exception {
        Path f = dir.resolve("drift.csv");
        StringBuilder sb = new StringBuilder("id,ts,x\n");
        for (int i = 1; i <= 20; i++) {
            sb.append(i).append(',').append(1_700_000_000_000L + i).append(',').append(i == 15 ? "1.5" : "" + i).append('\n');
        }
        Files.writeString(f, sb.toString());
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--sample", "10", "--tags", "id", f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("line 16") && r.err().contains("'x'"), r.err());
        assertTrue(r.err().contains("--types") || r.err().contains("--sample"),
                "no advice about the inferred type: " + r.err());
    }

    @Test
    void jsonLines() throws Exception {
        Path f = dir.resolve("drift_json.jsonl");
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= 20; i++) {
            sb.append("{\"id\":").append(i).append(",\"ts\":").append(1_700_000_000_000L + i).append(",\"x\":")
                    .append(i == 15 ? "1.5" : "" + i).append("}\n");
        }
        Files.writeString(f, sb.toString());
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--sample", "10", "--tags", "id", f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("line 15") && r.err().contains("'x'"), r.err());
        assertTrue(r.err().contains("--types") || r.err().contains("--sample"),
                "no advice about the inferred type: " + r.err());
    }
}
