package dev.sluice.importer.indoubt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.write.StatusCode;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.testkit.RecordedRequest;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a run into an append-mode table ends with batches sent and never answered, some stored and some not,
 * {@code --in-doubt check} asks the server which arrived (each batch's rows counted in its time range) and sends only
 * the others: the table ends with every row once. Where the count cannot decide (batches whose time ranges
 * overlap), it says so and sends nothing, as {@code --in-doubt fail} does.
 */
class InDoubtBatchesAreCheckedOnTheServerTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
    }

    private static String rows(int from, int to, boolean interleaved) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            // interleaved: the first half of the rows at even times, the second at odd ones
            long t = interleaved ? (i < 150 ? 2L * i : 2L * (i - 150) + 1) : i;
            sb.append('h').append(i % 5).append(',').append(1_700_000_000_000L + t).append(',').append(i).append('\n');
        }
        return sb.toString();
    }

    private List<String> args(String table, String... more) {
        // An unanswered batch fails after 2 s (the import then stops with it in doubt).
        List<String> a = new ArrayList<>(List.of("--endpoint", testkit.server().endpoint(), "--http-endpoint",
                testkit.server().httpEndpoint(), "--table", table, "--tags", "host", "--batch", "100", "--sample", "10",
                "--timeout", "2", "--retry-deadline", "2", "-q"));
        a.addAll(List.of(more));
        return a;
    }

    /**
     * The same arguments with deadlines of minutes, for the runs that do not wait out an unanswered batch: a busy
     * machine cannot fail them.
     */
    private static List<String> patient(List<String> a) {
        List<String> p = new ArrayList<>(a);
        p.set(p.indexOf("--timeout") + 1, "300");
        p.set(p.indexOf("--retry-deadline") + 1, "600");
        return p;
    }

    private void createAppendModeTable(String table) {
        Cli.Run created = Cli.run(patient(args(table, "--with", "append_mode=true", "--state",
                dir.resolve(table + "-create.state").toString(), write(table + "-create.csv",
                "host,ts,v\nh0,1600000000000,-1\n"))).toArray(new String[0]));
        assertEquals(0, created.code(), created.toString());
    }

    private String write(String name, String text) {
        try {
            Path p = dir.resolve(name);
            Files.writeString(p, text);
            return p.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void onlyTheBatchesNotStoredAreSentAgain() throws Exception {
        String table = "checked";
        createAppendModeTable(table);
        String state = dir.resolve("checked.state").toString();
        List<String> a = args(table, "--format", "csv", "--state", state, "-");
        InputStream old = System.in;
        // Batches 1 and 2 are stored and never answered; batch 3 is neither stored nor answered. The server turns
        // hung as batch 2 arrives, so all three go out at once, each well within the 2 s its answer may take.
        java.util.concurrent.atomic.AtomicInteger bulkBatches = new java.util.concurrent.atomic.AtomicInteger();
        testkit.server().faults().bulkNeverAck(true).hold(Faults.HoldPoint.BEFORE_ANSWER, r -> {
            if (r.kind().equals("bulk") && bulkBatches.incrementAndGet() == 2) {
                testkit.server().faults().neverRespond(true);
            }
            return false; // nothing is held: the matcher only sees the batches arrive
        });
        try {
            System.setIn(new ByteArrayInputStream(("host,ts,v\n" + rows(0, 300, false)).getBytes(StandardCharsets.UTF_8)));
            Cli.Run crashed = Cli.run(a.toArray(new String[0]));
            assertEquals(3, crashed.code(), crashed.toString());
        } finally {
            System.setIn(old);
        }
        List<RecordedRequest> batches = testkit.server().requests().stream()
                .filter(r -> r.kind().equals("bulk") && r.tables().contains(table)).toList();
        assertEquals(2, batches.stream().filter(r -> r.outcome() == StatusCode.Success && r.rows() == 100).count(),
                "batches 1 and 2 reached the server and were stored: " + batches);
        assertEquals(1, batches.stream().filter(r -> r.outcome() == null).count(),
                "batch 3 reached the server and was neither stored nor answered: " + batches);
        testkit.server().faults().reset();
        assertEquals(1 + 200, testkit.server().rowCount(table), "two of the three batches are stored");

        List<String> again = patient(a);
        again.add(0, "--in-doubt=check");
        Cli.Run rerun;
        try {
            System.setIn(new ByteArrayInputStream(("host,ts,v\n" + rows(0, 300, false)).getBytes(StandardCharsets.UTF_8)));
            rerun = Cli.run(again.toArray(new String[0]));
        } finally {
            System.setIn(old);
        }
        assertEquals(0, rerun.code(), rerun.toString());
        assertTrue(rerun.err().contains("1..100") && rerun.err().contains("201..300"), rerun.toString());
        List<Map<String, Object>> stored = testkit.server().rows(table);
        Set<Object> times = new HashSet<>();
        stored.forEach(m -> times.add(m.get("ts")));
        assertEquals(1 + 300, stored.size(), "every row once: " + rerun);
        assertEquals(stored.size(), times.size(), "no row stored twice");
    }

    @Test
    void batchesWhoseTimesOverlapCannotBeDecidedAndNothingIsSent() throws Exception {
        String table = "overlapping";
        createAppendModeTable(table);
        String csv = write("overlapping.csv", "host,ts,v\n" + rows(0, 300, true));
        List<String> a = args(table, "--path", "regular", "--state", dir.resolve("overlapping.state").toString(), csv);
        testkit.server().faults().neverRespond(true);
        Cli.Run crashed = Cli.run(a.toArray(new String[0]));
        assertEquals(3, crashed.code(), crashed.toString());
        testkit.server().faults().reset();

        List<String> check = patient(a);
        check.add(0, "--in-doubt=check");
        Cli.Run undecided = Cli.run(check.toArray(new String[0]));
        assertEquals(3, undecided.code(), undecided.toString());
        assertTrue(undecided.err().contains("overlaps") && undecided.err().contains("--in-doubt resend"),
                undecided.toString());
        assertEquals(1, testkit.server().rowCount(table), "nothing was sent");

        List<String> resend = patient(a);
        resend.add(0, "--in-doubt=resend");
        Cli.Run sent = Cli.run(resend.toArray(new String[0]));
        assertEquals(0, sent.code(), sent.toString());
        assertEquals(1 + 300, testkit.server().rowCount(table));
    }
}
