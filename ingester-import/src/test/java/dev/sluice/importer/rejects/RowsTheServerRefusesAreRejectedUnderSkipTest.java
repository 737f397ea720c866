package dev.sluice.importer.rejects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.StatusCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under --on-error skip a row the server refuses (a time its partitions cannot hold, answered with code 1004) does
 * not stop the import: the refused request is narrowed down to that row by writing its parts on their own, the row
 * goes to the rejects file with the server's message, every other row is stored, and the summary counts what was
 * acknowledged. For every format and both paths. The testkit refuses the row through its fault API (a request
 * holding the tag value is refused whole, as the server refuses a request holding such a time).
 */
class RowsTheServerRefusesAreRejectedUnderSkipTest {
    private static final String OUT_OF_BOUND = "Partition time range for 9223286400000000000::Nanosecond is out of bound";

    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
    }

    private void refuseTheFarRow() {
        testkit.server().faults().refuseValue("host", "far", StatusCode.InvalidArguments, OUT_OF_BOUND);
    }

    @Test
    void aLineProtocolRequestOfFourTablesLosesOnlyTheRefusedLine() throws Exception {
        Path lp = dir.resolve("four.lp");
        Files.writeString(lp, "lpb_mem,host=a used=1 1700000000000000000\n"
                + "lpb_disk,host=a free=2 1700000000000000000\n"
                + "lpb_cpu,host=far value=1 9223372036854775806\n"
                + "lpb_net,host=a rx=3 1700000000000000000\n"
                + "lpb_cpu,host=b value=2 1700000000000000001\n");
        refuseTheFarRow();
        Path rejects = dir.resolve("rejects.jsonl");
        Path json = dir.resolve("summary.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--on-error", "skip", "--rejects", rejects.toString(), "--batch",
                "3", "--summary-json", json.toString(), "--state", dir.resolve("lp.state").toString(), lp.toString()));

        assertEquals(1, r.code(), r.toString());
        for (String t : List.of("lpb_mem", "lpb_disk", "lpb_net")) {
            assertEquals(1, testkit.server().rows(t).size(), t + ": " + r);
        }
        List<Map<String, Object>> cpu = testkit.server().rows("lpb_cpu");
        assertEquals(1, cpu.size(), r.toString());
        assertEquals("b", cpu.get(0).get("host"));
        List<String> rejected = Files.readAllLines(rejects);
        assertEquals(1, rejected.size(), rejected.toString());
        assertTrue(rejected.get(0).contains("\"line\":3") && rejected.get(0).contains(OUT_OF_BOUND)
                && rejected.get(0).contains("host=far"), rejected.get(0));
        String summary = Files.readString(json);
        assertTrue(summary.contains("\"rowsWritten\":4") && summary.contains("\"rowsRejected\":1"), summary);
    }

    @Test
    void aTimeTheServersPartitionsCannotHoldIsRejectedWithTheServersOwnMessage() throws Exception {
        // No fault injected: the server refuses the time itself, as GreptimeDB does.
        Path lp = dir.resolve("far.lp");
        Files.writeString(lp, "lpf_mem,host=a used=1 1700000000000000000\n"
                + "lpf_cpu value=1 9223372036854775806\n"
                + "lpf_cpu value=2 1700000000000000001\n");
        Path rejects = dir.resolve("far.rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--on-error", "skip", "--rejects", rejects.toString(), "--state",
                dir.resolve("far.state").toString(), lp.toString()));

        assertEquals(1, r.code(), r.toString());
        assertEquals(1, testkit.server().rows("lpf_mem").size(), r.toString());
        assertEquals(1, testkit.server().rows("lpf_cpu").size(), r.toString());
        List<String> rejected = Files.readAllLines(rejects);
        assertEquals(1, rejected.size(), rejected.toString());
        assertTrue(rejected.get(0).contains("\"line\":2") && rejected.get(0).contains("9223372036854775806"),
                rejected.get(0));
    }

    private Path hosts() throws Exception {
        Path csv = dir.resolve("hosts.csv");
        Files.writeString(csv, "host,ts,v\n"
                + "a,1700000000000,1\n"
                + "far,1700000000001,2\n"
                + "c,1700000000002,3\n"
                + "d,1700000000003,4\n"
                + "e,1700000000004,5\n");
        return csv;
    }

    private void importHostsSkippingTheFarRow(String table, String path) throws Exception {
        Path rejects = dir.resolve(table + ".rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", table, "--tags", "host", "--path", path, "--on-error",
                "skip", "--rejects", rejects.toString(), "--batch", "2", "--in-flight", "1", "--parallelism", "1",
                "--state", dir.resolve(table + ".state").toString(), hosts().toString()));

        assertEquals(1, r.code(), r.toString());
        TreeSet<Object> stored = new TreeSet<>();
        testkit.server().rows(table).forEach(m -> stored.add(m.get("host")));
        assertEquals(new TreeSet<>(List.of("a", "c", "d", "e")), stored, r.toString());
        List<String> rejected = Files.readAllLines(rejects);
        assertEquals(1, rejected.size(), rejected.toString());
        assertTrue(rejected.get(0).contains("\"line\":3") && rejected.get(0).contains(OUT_OF_BOUND), rejected.get(0));
        assertTrue(r.out().contains("4 written (acknowledged), 1 rejected"), r.toString());
    }

    @Test
    void aCsvRowRefusedOnTheRegularPathIsRejectedAndTheRestStored() throws Exception {
        refuseTheFarRow();
        importHostsSkippingTheFarRow("refused_regular", "regular");
    }

    @Test
    void aCsvBatchRefusedOnTheBulkPathIsNarrowedToItsRefusedRow() throws Exception {
        // The bulk batch holding the row is refused; the parts written on their own meet the same refusal.
        testkit.server().faults().failBulkBatch(1, StatusCode.InvalidArguments, OUT_OF_BOUND);
        refuseTheFarRow();
        importHostsSkippingTheFarRow("refused_bulk", "bulk");
    }
}
