package dev.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bench.cost.TestkitProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CostBenchmarkTest {
    @TempDir
    Path dir;

    /** Asks the testkit process itself, over its HTTP SQL endpoint, how many rows a table holds. */
    private static long countOverHttp(String httpEndpoint, String table) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + httpEndpoint + "/v1/sql?db=public"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql="
                        + URLEncoder.encode("SELECT count(*) FROM " + table, StandardCharsets.UTF_8))).build();
        String body = http.send(req, HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("\"rows\":\\[\\[(\\d+)\\]\\]").matcher(body);
        assertTrue(m.find(), body);
        return Long.parseLong(m.group(1));
    }

    @Test
    void costModeRunsEveryPathInItsOwnClientJvmsAndTheTestkitProcessHoldsTheRowsWritten() throws Exception {
        Path csv = dir.resolve("cost.csv");
        try (TestkitProcess testkit = new TestkitProcess(List.of("-Xmx512m"), Duration.ofMinutes(2))) {
            assertNotEquals(ProcessHandle.current().pid(), testkit.pid(), "the testkit runs in a process of its own");
            String http = testkit.httpEndpoint();
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            PrintStream previous = System.out;
            int code;
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                code = new CommandLine(new BenchMain()).execute("--cost", "--workload", "metrics",
                        "--mode", "regular,stream,bulk", "--batch-sweep", "250,1000", "--short-rows", "1000",
                        "--rows", "3000", "--client-jvm-args", "-Xmx256m -XX:TieredStopAtLevel=1",
                        "--endpoint", testkit.endpoint(), "--http-endpoint", http, "--out", csv.toString());
            } finally {
                System.setOut(previous);
            }
            String printed = captured.toString(StandardCharsets.UTF_8);
            assertEquals(0, code, printed);
            // The last run (bulk, batch 1,000, the long run of 3,000 rows), counted by the testkit process.
            assertEquals(3_000, countOverHttp(http, "bench_metrics"), "rows stored by the testkit process");
            List<String> lines = Files.readAllLines(csv);
            assertEquals(9, lines.size(), "a header and, per batch size, the workload-only baseline and one row per"
                    + " path: " + lines);
            int baselines = 0;
            java.util.Map<String, Double> baselineMarginal = new java.util.HashMap<>();
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.split(",", -1);
                assertEquals("1000", f[3], line);
                assertEquals("3000", f[4], line);
                assertTrue(Double.parseDouble(f[6]) > 0, "the long run used CPU: " + line);
                assertTrue(Double.parseDouble(f[10]) > 10, "peak RSS of a JVM is read from /proc: " + line);
                assertEquals("\"ok\"", f[17], line);
                double jitShort = Double.parseDouble(f[14]);
                double jitLong = Double.parseDouble(f[15]);
                // The JIT threads' CPU and the process's come from clocks of different resolution, so how they
                // compare is not asserted; both are produced, and the figure without the JIT is derived from them.
                assertTrue(jitShort >= 0 && jitLong >= 0, "the JIT compiler threads' CPU is read: " + line);
                double expectedMarginal = (Double.parseDouble(f[6]) - Double.parseDouble(f[5])) * 1e6 / 2_000;
                // CPU seconds are printed to the millisecond: 0.5 µs per extra row of rounding at most.
                assertEquals(expectedMarginal, Double.parseDouble(f[8]), 0.501, "the marginal is the long run's CPU"
                        + " less the short run's, per extra row: " + line);
                double expectedNoJit = ((Double.parseDouble(f[6]) - jitLong) - (Double.parseDouble(f[5]) - jitShort))
                        * 1e6 / 2_000;
                assertEquals(expectedNoJit, Double.parseDouble(f[16]), 0.002, "marginal without the JIT's CPU: " + line);
                if (f[1].equals("workload")) {
                    baselines++;
                    assertEquals("", f[13], "the baseline has no client figure: " + line);
                    baselineMarginal.put(f[2], Double.parseDouble(f[8]));
                } else {
                    // The JIT's CPU and the heap allocated per extra row are measurements of separate runs: they
                    // are checked to be produced, not to compare a given way.
                    assertTrue(Double.isFinite(Double.parseDouble(f[9])), "the heap per row is a figure: " + line);
                    double expected = Double.parseDouble(f[8]) - baselineMarginal.get(f[2]);
                    assertEquals(expected, Double.parseDouble(f[13]), 0.002, "the client figure is the path's marginal"
                            + " less the baseline's of the same batch size, which runs first: " + line);
                }
            }
            assertEquals(2, baselines, "one baseline per batch size: " + lines);
            assertTrue(printed.contains("marginal"), printed);
        }
    }

    @Test
    void costModeRefusesALongRunNoLongerThanTheShortOne() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new BenchMain()).setErr(new PrintWriter(err)).execute("--cost", "--rows", "1000",
                "--short-rows", "1000", "--endpoint", "127.0.0.1:1", "--http-endpoint", "127.0.0.1:1");
        assertNotEquals(0, code);
        assertTrue(err.toString().contains("the long run needs more rows than the short one"), err.toString());
    }
}
