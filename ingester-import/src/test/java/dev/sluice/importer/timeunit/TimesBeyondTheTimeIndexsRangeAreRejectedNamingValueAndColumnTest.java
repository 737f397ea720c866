package dev.sluice.importer.timeunit;

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
 * A time the table's time index cannot hold (past 2262 in nanoseconds) is a rejected row whose reason names the
 * value and the time index column, as every other bad value's reason does, so the user can find and fix it: not
 * the bare "long overflow" of a Java multiplication.
 */
class TimesBeyondTheTimeIndexsRangeAreRejectedNamingValueAndColumnTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private Cli.Run run(String table, String name, String text, String... more) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        List<String> args = new java.util.ArrayList<>(List.of("--table", table, "--on-error", "skip", "--state",
                dir.resolve(name + ".state").toString()));
        args.addAll(List.of(more));
        args.add(f.toString());
        return Cli.run(Cli.at(testkit.server(), args.toArray(new String[0])));
    }

    @Test
    void anIsoTimeAfter2262IntoANanosecondColumn() throws Exception {
        Cli.Run created = run("iso_ns", "first.csv", "ts,v\n2024-01-01T00:00:00.000000001Z,1\n");
        assertEquals(0, created.code(), created.toString());
        Cli.Run r = run("iso_ns", "late.csv", "ts,v\n2400-01-01T00:00:00Z,2\n2024-01-01T00:00:00.000000002Z,3\n");
        assertEquals(1, r.code(), r.toString());
        List<Map<String, Object>> rows = testkit.server().rows("iso_ns");
        assertEquals(2, rows.size(), rows.toString());
        assertTrue(r.err().contains("'ts'") && r.err().contains("2400-01-01T00:00:00Z"),
                "the reason names the column and the value: " + r);
    }

    @Test
    void aLineProtocolTimeInSecondsBeyondANanosecondTable() throws Exception {
        Cli.Run created = run("lp_ns", "first.lp", "lp_ns v=1 1\n");
        assertEquals(0, created.code(), created.toString());
        Cli.Run r = run("lp_ns", "late.lp", "lp_ns v=2 9999999999\nlp_ns v=3 2\n", "--precision", "s");
        assertEquals(1, r.code(), r.toString());
        List<Map<String, Object>> rows = testkit.server().rows("lp_ns");
        assertEquals(2, rows.size(), rows.toString());
        assertTrue(r.err().contains("greptime_timestamp") && r.err().contains("9999999999"),
                "the reason names the time index and the value: " + r);
    }
}
