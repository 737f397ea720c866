package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Bad rows under each policy: what is stored, what is rejected, and the exit code. */
class BadRowsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    /** Rows id 1..10; the ids in {@code bad} get an unparsable value. */
    Path file(String name, long... bad) throws IOException {
        StringBuilder sb = new StringBuilder("id,v,ts\n");
        for (long i = 1; i <= 10; i++) {
            final long id = i;
            boolean b = LongStream.of(bad).anyMatch(x -> x == id);
            sb.append(i).append(',').append(b ? "oops" : Double.toString(i / 4.0)).append(',')
                    .append(1_700_000_000_000L + i).append('\n');
        }
        Path f = dir.resolve(name + ".csv");
        Files.writeString(f, sb.toString());
        return f;
    }

    static List<Long> ids(String table) {
        return testkit.server().rows(table).stream().map(m -> (Long) m.get("id")).sorted().collect(Collectors.toList());
    }

    @Test
    void abortStopsAtTheFirstBadRowNamingItAndSendsNothingAfterIt() throws IOException {
        Path f = file("abort", 6, 8);
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "v:Float64", "--batch", "2", f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("abort.csv' line 7, column 'v': 'oops' is not a number (Float64)"), r.err());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), ids("abort"));
    }

    @Test
    void skipWritesEveryGoodRowAndEachRejectToTheRejectsFile() throws IOException {
        Path f = file("skip", 6, 8);
        Path rejects = dir.resolve("rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "v:Float64", "--batch", "3", "--on-error", "skip", "--rejects",
                rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 7L, 9L, 10L), ids("skip"));
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(2, lines.size());
        assertEquals("{\"source\":\"" + f + "\",\"line\":7,\"column\":\"v\",\"reason\":\"line 7, column 'v': 'oops' is not"
                + " a number (Float64)\",\"raw\":\"6,oops,1700000000006\"}", lines.get(0));
        assertTrue(lines.get(1).contains("\"line\":9") && lines.get(1).contains("8,oops,"), lines.get(1));
        assertTrue(r.out().contains("10 rows read, 8 written (acknowledged), 2 rejected"), r.out());
    }

    @Test
    void aRerunDoesNotAppendRowsTheRejectsFileAlreadyHolds() throws IOException {
        Path f = file("rerun", 6, 8);
        Path rejects = dir.resolve("rerun.rejects.jsonl");
        Path state = dir.resolve("rerun.state");
        String[] common = {"--tags", "id", "--types", "v:Float64", "--batch", "2", "--rejects", rejects.toString(),
            "--state", state.toString()};
        Cli.Run aborted = Cli.run(Cli.at(testkit.server(), concat(common, f.toString())));
        assertEquals(1, aborted.code(), aborted.toString());
        assertEquals(1, Files.readAllLines(rejects).size());
        // The rerun starts at the row the first run stopped at and rejects it again.
        Cli.Run skipped = Cli.run(Cli.at(testkit.server(), concat(common, "--on-error", "skip", f.toString())));
        assertEquals(1, skipped.code(), skipped.toString());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 7L, 9L, 10L), ids("rerun"));
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(2, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).contains("\"line\":7") && lines.get(1).contains("\"line\":9"), String.join("\n", lines));
        // Imported again from the start: every reject is already in the file.
        Cli.Run restarted = Cli.run(Cli.at(testkit.server(), concat(common, "--on-error", "skip", "--restart",
                f.toString())));
        assertEquals(1, restarted.code(), restarted.toString());
        assertEquals(lines, Files.readAllLines(rejects));
    }

    static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void anAbortInOneOfParallelFilesStoresOfEveryFileExactlyTheRowsTheStateRecords() throws IOException {
        Path bad = file("par_a", 3);
        StringBuilder sb = new StringBuilder("id,v,ts\n");
        for (long i = 1001; i <= 60_000; i++) {
            sb.append(i).append(',').append(i / 4.0).append(',').append(1_700_000_000_000L + i).append('\n');
        }
        Path big = dir.resolve("par_b.csv");
        Files.writeString(big, sb.toString());
        Path state = dir.resolve("par.state");
        testkit.server().faults().bulkAckDelay(java.time.Duration.ofMillis(20));
        try {
            String[] common = {"--tags", "id", "--types", "v:Float64", "--table", "par", "--batch", "100",
                "--parallelism", "2", "--state", state.toString()};
            Cli.Run r = Cli.run(Cli.at(testkit.server(), concat(common, big.toString(), bad.toString())));
            assertEquals(1, r.code(), r.toString());
            assertTrue(r.err().contains("par_a.csv' line 4, column 'v'") && r.err().contains("other inputs stopped"),
                    r.err());
            String recorded = Files.readString(state);
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"name\" : \"([^\"]+)\",.*?\"acked\" : (\\d+)",
                    java.util.regex.Pattern.DOTALL).matcher(recorded);
            Map<String, Long> acked = new java.util.HashMap<>();
            while (m.find()) {
                acked.put(m.group(1), Long.parseLong(m.group(2)));
            }
            long ackedBig = acked.get(big.toString());
            assertEquals(2L, acked.get(bad.toString()), recorded);
            assertTrue(ackedBig < 59_000, "the big file stopped early: " + recorded);
            List<Long> expected = new java.util.ArrayList<>(List.of(1L, 2L));
            for (long i = 1001; i <= 1000 + ackedBig; i++) {
                expected.add(i);
            }
            assertEquals(expected, ids("par"));

            // Run again past the bad row: every file continues where the state says it stopped.
            testkit.server().faults().reset();
            Cli.Run rerun = Cli.run(Cli.at(testkit.server(), concat(common, "--on-error", "skip", big.toString(),
                    bad.toString())));
            assertEquals(1, rerun.code(), rerun.toString());
            assertEquals(59_000 + 9, ids("par").size());
        } finally {
            testkit.server().faults().reset();
        }
    }

    @Test
    void maxErrorsStopsTheImportOnceExceeded() throws IOException {
        Path f = file("maxerr", 3, 6, 8);
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "v:Float64", "--batch", "2", "--on-error", "skip",
                "--max-errors", "1", f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("more than 1 rows rejected"), r.err());
        assertEquals(List.of(1L, 2L, 4L, 5L), ids("maxerr"));
    }

    @Test
    void aNegativeMaxErrorsIsAUsageErrorNotNoLimit() throws IOException {
        Path f = file("maxneg", 2);
        for (String n : List.of("-1", "-5")) {
            Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--on-error", "skip", "--max-errors", n,
                    f.toString()));
            assertEquals(2, r.code(), r.toString());
            assertTrue(r.err().contains("--max-errors must be 0 or more, not " + n), r.err());
        }
        assertTrue(!testkit.server().tables().contains("maxneg"), "nothing is created by a refused command");
    }

    @Test
    void aRecordWithTheWrongNumberOfFieldsIsABadRow() throws IOException {
        Path f = dir.resolve("fields.csv");
        Files.writeString(f, "id,v,ts\n1,0.5,1700000000001\n2,1700000000002\n3,1.5,1700000000003\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "v:Float64", "--on-error", "skip", f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("fields.csv' line 3 has 2 fields, the header 3"), r.err());
        assertEquals(List.of(1L, 3L), ids("fields"));
    }

    @Test
    void usageErrorsExitWith2AndAnUnreachableServerWith3() throws IOException {
        Path f = file("codes");
        Cli.Run usage = Cli.run(Cli.at(testkit.server(), "--on-error", "maybe", f.toString()));
        assertEquals(2, usage.code(), usage.toString());
        Cli.Run unknownOption = Cli.run(Cli.at(testkit.server(), "--bogus", f.toString()));
        assertEquals(2, unknownOption.code(), unknownOption.toString());
        Cli.Run down = Cli.run("--endpoint", "127.0.0.1:1", "--retry-deadline", "1", "--timeout", "2", "-q",
                f.toString());
        assertEquals(3, down.code(), down.toString());
        assertTrue(down.err().startsWith("error: "), down.err());
    }

    @Test
    void verifyComparesTheServersCountAndTheSummaryJsonSaysSo() throws IOException {
        Path f = file("verified");
        Path json = dir.resolve("summary.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "v:Float64", "--verify", "--summary-json", json.toString(),
                f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("verify: count(*) = 10 as expected"), r.out());
        String s = Files.readString(json);
        assertTrue(s.contains("\"rowsWritten\":10") && s.contains("\"verifyCount\":10") && s.contains("\"verifyOk\":true")
                && s.contains("\"exitCode\":0"), s);
        Map<String, Object> any = testkit.server().rows("verified").get(0);
        assertTrue(any.containsKey("v"));
    }

    @Test
    void theSummarySplitsTheRunIntoSetupAndTransferAndRatesTheTransferAlone() throws IOException {
        Path f = file("timed");
        Path json = dir.resolve("timed.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "v:Float64", "--summary-json", json.toString(),
                f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("setup (sampling, table lookup, connecting) ") && r.out().contains("then reading and"
                + " writing "), r.out());
        String s = Files.readString(json);
        double seconds = number(s, "seconds");
        double setup = number(s, "setupSeconds");
        double transfer = number(s, "transferSeconds");
        assertTrue(setup > 0 && transfer > 0 && setup + transfer <= seconds + 0.002, s);
        // the seconds are rounded to the millisecond in the file: the rate agrees within that rounding
        double rate = number(s, "transferRowsPerSecond");
        assertTrue(rate >= 10 / (transfer + 0.0005) - 1 && rate <= 10 / Math.max(1e-6, transfer - 0.0005) + 1, s);
    }

    private static double number(String json, String key) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + key + "\":([0-9.eE+-]+)").matcher(json);
        assertTrue(m.find(), key + " in " + json);
        return Double.parseDouble(m.group(1));
    }
}
