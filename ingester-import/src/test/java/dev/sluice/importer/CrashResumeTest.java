package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The import killed with kill -9 (a child JVM), or losing its server, and run again: the table ends as an
 * uninterrupted import leaves it, and an append-mode table never holds a row twice without being asked to.
 */
class CrashResumeTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    static final int FILES = 3;
    static final int ROWS_PER_FILE = 20_000;

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
        testkit.server().resume();
    }

    List<String> files() throws IOException {
        List<String> out = new ArrayList<>();
        for (int f = 0; f < FILES; f++) {
            StringBuilder sb = new StringBuilder("host,ts,cpu,note\n");
            for (int i = 0; i < ROWS_PER_FILE; i++) {
                long n = (long) f * ROWS_PER_FILE + i;
                sb.append("h").append(n % 50).append(',').append(1_700_000_000_000L + n).append(',').append(n * 0.25)
                        .append(",row ").append(n).append('\n');
            }
            Path p = dir.resolve("part-" + f + ".csv");
            Files.writeString(p, sb.toString());
            out.add(p.toString());
        }
        return out;
    }

    String[] args(String table, Path state, List<String> files, String... more) {
        return args(table, state, files, 2, more);
    }

    String[] args(String table, Path state, List<String> files, int inFlightAndParallelism, String... more) {
        String n = Integer.toString(inFlightAndParallelism);
        List<String> a = new ArrayList<>(List.of("--endpoint", testkit.server().endpoint(), "--http-endpoint",
                testkit.server().httpEndpoint(), "--table", table, "--tags", "host", "--state", state.toString(),
                "--batch", "500", "--in-flight", n, "--parallelism", n, "-q"));
        a.addAll(List.of(more));
        a.addAll(files);
        return a.toArray(new String[0]);
    }

    static List<Map<String, Object>> sorted(String table) {
        List<Map<String, Object>> rows = new ArrayList<>(testkit.server().rows(table));
        rows.sort(Comparator.comparing((Map<String, Object> m) -> (Long) m.get("ts")).thenComparing(m -> (String) m.get("host")));
        return rows;
    }

    List<Map<String, Object>> reference(List<String> files) {
        Cli.Run r = Cli.run(args("reference_" + System.nanoTime(), dir.resolve("ref.state"), files));
        assertEquals(0, r.code(), r.toString());
        String table = testkit.server().tables().stream().filter(t -> t.startsWith("reference_")).reduce((x, y) -> y)
                .orElseThrow();
        List<Map<String, Object>> rows = sorted(table);
        assertEquals(FILES * ROWS_PER_FILE, rows.size());
        return rows;
    }

    /** Starts the command in a child JVM. */
    static Process child(String[] args, Path log) throws IOException {
        return new ProcessBuilder(childCommand(List.of(), args)).redirectErrorStream(true).redirectOutput(log.toFile())
                .start();
    }

    /** The java command line that runs the import in a child JVM on this test's class path. */
    static List<String> childCommand(List<String> jvmOptions, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        cmd.add("-Xmx512m");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ImportCommand.class.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * Starts a child import and kills it with SIGKILL while it cannot have finished: once write requests for
     * {@code table} carrying at least {@code rowsBefore} rows have passed and {@code state} (when not null) records an
     * acknowledged row, the next request is stored and its answer held, and the child, waiting for that answer, is
     * killed. The held answer then goes to nobody. Fails with the child's log when it ends before a request is held.
     */
    static void killWhileHeld(GreptimeTestServer server, String table, long rowsBefore, Path state,
            java.util.concurrent.Callable<Process> start, Path log) throws Exception {
        java.util.concurrent.atomic.AtomicLong passed = new java.util.concurrent.atomic.AtomicLong();
        // Held once the state file records an acknowledged row, or at twice the rows in any case: the file is saved at
        // most every 200 ms, which a short import on a fast machine can outrun to its end.
        server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> {
            if (!r.tables().contains(table)) {
                return false;
            }
            long before = passed.getAndAdd(r.rows());
            return before >= rowsBefore
                    && (state == null || recordsAnAcknowledgedRow(state) || before >= 2 * rowsBefore);
        });
        Process p = start.call();
        try {
            awaitHeldWhileAlive(server, p, log);
        } finally {
            p.destroyForcibly(); // SIGKILL
            assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the killed import did not end");
            server.faults().release();
        }
    }

    /**
     * Waits until the server holds a request (a hold must be set), failing with the child's log when the child ends
     * first; the child is alive on return.
     */
    static void awaitHeldWhileAlive(GreptimeTestServer server, Process p, Path log) throws Exception {
        while (server.faults().heldCount() == 0) {
            assertTrue(p.isAlive(), "the import ended before a request was held: " + Files.readString(log));
            try {
                server.faults().awaitHeld(1, Duration.ofSeconds(1));
            } catch (java.util.concurrent.TimeoutException notYet) {
                // look at the child again
            }
        }
        assertTrue(p.isAlive(), "the import ended while its request was held: " + Files.readString(log));
    }

    /** Whether the state file records at least one acknowledged row (false while it does not exist). */
    static boolean recordsAnAcknowledgedRow(Path state) {
        try {
            return java.util.regex.Pattern.compile("\"acked\" : [1-9]").matcher(Files.readString(state)).find();
        } catch (IOException notYetWritten) {
            return false;
        }
    }

    @Test
    void killedThreeTimesAndRunAgainTheTableEqualsAnUninterruptedImport() throws Exception {
        List<String> files = files();
        List<Map<String, Object>> expected = reference(files);
        Path state = dir.resolve("crash.state");
        long[] rowsBeforeKill = {8_000, 19_000, 20_000};
        for (int k = 0; k < rowsBeforeKill.length; k++) {
            Path log = dir.resolve("run-" + k + ".log");
            killWhileHeld(testkit.server(), "crashed", rowsBeforeKill[k], state,
                    () -> child(args("crashed", state, files), log), log);
            assertTrue(Files.exists(state), "the state file is written while importing");
            assertTrue(Files.readString(state).contains("\"done\" : false"), Files.readString(state));
        }
        testkit.server().faults().reset();
        Cli.Run last = Cli.run(args("crashed", state, files, "--verify"));
        assertEquals(0, last.code(), last.toString());
        assertEquals(expected, sorted("crashed"));
        // Every input is recorded as done: another run sends nothing.
        long requests = testkit.server().requestCount();
        Cli.Run again = Cli.run(args("crashed", state, files));
        assertEquals(0, again.code(), again.toString());
        assertEquals(expected, sorted("crashed"));
        assertEquals(requests, testkit.server().requestCount());
    }

    @Test
    void anAppendModeTableIsNeverGivenAnUnansweredBatchTwiceWithoutBeingAsked() throws Exception {
        List<String> files = files();
        List<Map<String, Object>> expected = reference(files);
        Path state = dir.resolve("append.state");
        String[] run = args("appended", state, files, 1, "--with", "append_mode=true");
        Path log = dir.resolve("append.log");
        // Batch 4 is stored; its answer is held when the import is killed.
        killWhileHeld(testkit.server(), "appended", 1_500, null, () -> child(run, log), log);
        long stored = testkit.server().rowCount("appended");
        assertEquals("true", testkit.server().tableOptions("public", "appended").get("append_mode"));

        Cli.Run refused = Cli.run(run);
        assertEquals(3, refused.code(), refused.toString());
        assertTrue(refused.err().contains("part-0.csv' records 1501..2000") && refused.err().contains("--in-doubt"),
                refused.err());
        assertEquals(stored, testkit.server().rowCount("appended"), "nothing is sent while batches are in doubt");

        // The held batch was stored: continue after it.
        List<String> skip = new ArrayList<>(List.of(run));
        skip.add(0, "--in-doubt=skip");
        Cli.Run resumed = Cli.run(skip.toArray(new String[0]));
        assertEquals(0, resumed.code(), resumed.toString());
        assertEquals(expected, sorted("appended"));
    }

    @Test
    void aServerStoppedMidImportAndBackWithinTheRetryDeadlineLosesNothing() throws Exception {
        List<String> files = files();
        List<Map<String, Object>> expected = reference(files);
        testkit.server().faults().bulkAckDelay(Duration.ofMillis(20));
        CompletableFuture<Cli.Run> run = CompletableFuture.supplyAsync(
                () -> Cli.run(args("outage", dir.resolve("outage.state"), files, "--retry-deadline", "60")));
        waitForRows("outage", 20_000, run);
        testkit.server().stop();
        Thread.sleep(2_000); // scenario timing: the outage lasts two seconds, not a wait
        testkit.server().resume();
        Cli.Run r = run.get(10, TimeUnit.MINUTES);
        assertEquals(0, r.code(), r.toString());
        assertEquals(expected, sorted("outage"));
    }

    @Test
    void aServerGoneLongerThanTheRetryDeadlineFailsTheImportAndTheRerunFinishesIt() throws Exception {
        List<String> files = files();
        List<Map<String, Object>> expected = reference(files);
        testkit.server().faults().bulkAckDelay(Duration.ofMillis(20));
        Path state = dir.resolve("gone.state");
        // Only the retry deadline is short: the call timeout stays at its default, so that a busy machine cannot
        // fail the import while the server still answers (opening the channel, preparing the bulk writers).
        CompletableFuture<Cli.Run> run = CompletableFuture.supplyAsync(
                () -> Cli.run(args("gone", state, files, "--retry-deadline", "2")));
        waitForRows("gone", 20_000, run);
        testkit.server().stop();
        Cli.Run failed = run.get(10, TimeUnit.MINUTES);
        assertEquals(3, failed.code(), failed.toString());
        assertTrue(failed.err().contains("run the same command again"), failed.err());
        testkit.server().resume();
        testkit.server().faults().reset();
        Cli.Run r = Cli.run(args("gone", state, files));
        assertEquals(0, r.code(), r.toString());
        assertEquals(expected, sorted("gone"));
    }

    /** The same rows as {@link #files()}, as Parquet files of row groups of 3,000 rows. */
    List<String> parquetFiles() throws IOException {
        List<String> out = new ArrayList<>();
        for (int f = 0; f < FILES; f++) {
            Path p = dir.resolve("part-" + f + ".parquet");
            final int file = f;
            ParquetFiles.write(p, "message m { optional binary host (STRING); required int64 ts (TIMESTAMP(MILLIS,true));"
                    + " optional double cpu; optional binary note (STRING); }", CompressionCodecName.SNAPPY,
                    ParquetProperties.WriterVersion.PARQUET_1_0, 3_000, (g, rows) -> {
                        for (int i = 0; i < ROWS_PER_FILE; i++) {
                            long n = (long) file * ROWS_PER_FILE + i;
                            rows.accept(g.newGroup().append("host", "h" + n % 50).append("ts", 1_700_000_000_000L + n)
                                    .append("cpu", n * 0.25).append("note", "row " + n));
                        }
                    });
            out.add(p.toString());
        }
        return out;
    }

    @Test
    void aParquetImportKilledTwiceResumesFromItsRowsAndEqualsAnUninterruptedImport() throws Exception {
        List<String> files = parquetFiles();
        List<Map<String, Object>> expected = reference(files);
        Path state = dir.resolve("parquet.state");
        long[] rowsBeforeKill = {10_000, 23_000};
        for (int k = 0; k < rowsBeforeKill.length; k++) {
            Path log = dir.resolve("pq-" + k + ".log");
            killWhileHeld(testkit.server(), "crashed_parquet", rowsBeforeKill[k], state,
                    () -> child(args("crashed_parquet", state, files), log), log);
        }
        testkit.server().faults().reset();
        String recorded = Files.readString(state);
        long acked = java.util.regex.Pattern.compile("\"acked\" : (\\d+)").matcher(recorded).results()
                .mapToLong(m -> Long.parseLong(m.group(1))).sum();
        assertTrue(acked > 0 && acked < FILES * ROWS_PER_FILE, recorded);
        Path summary = dir.resolve("parquet.summary.json");
        Cli.Run last = Cli.run(args("crashed_parquet", state, files, "--verify", "--summary-json", summary.toString()));
        assertEquals(0, last.code(), last.toString());
        assertEquals(expected, sorted("crashed_parquet"));
        // The rerun read only the rows not recorded as acknowledged.
        assertTrue(Files.readString(summary).contains("\"rowsRead\":" + (FILES * ROWS_PER_FILE - acked)),
                Files.readString(summary) + "\n" + recorded);
    }

    static void waitForRows(String table, long rows, CompletableFuture<Cli.Run> run) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (run.isDone()) {
                throw new AssertionError("the import ended before " + table + " held " + rows + " rows: " + run.get());
            }
            if (testkit.server().tables().contains(table) && testkit.server().rowCount(table) >= rows) {
                return;
            }
            Thread.sleep(5); // a poll of the stored rows, bounded by the deadline
        }
        throw new AssertionError(table + " never reached " + rows + " rows");
    }
}
