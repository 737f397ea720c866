package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A line protocol import (the regular path, one table per measurement) killed with kill -9 and run again: every
 * line is stored once with its values, and lines without a timestamp keep the one import time across the runs.
 */
class LineProtocolCrashResumeTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    static final int FILES = 2;
    static final int LINES = 6_000;
    static final long T0 = 1_700_000_000_000_000_000L;

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
    }

    /** Line n: measurement lp_a or lp_b by parity with a timestamp, and every tenth also a lp_nots line without one. */
    List<String> files(String prefix) throws IOException {
        List<String> out = new ArrayList<>();
        for (int f = 0; f < FILES; f++) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < LINES; i++) {
                long n = (long) f * LINES + i;
                sb.append(prefix).append(n % 2 == 0 ? "_a" : "_b").append(",host=h").append(n % 50).append(" v=")
                        .append(n * 0.25).append(",n=").append(n).append("i,note=\"row ").append(n).append("\" ")
                        .append(T0 + n).append('\n');
                if (n % 10 == 0) {
                    sb.append(prefix).append("_nots,host=h").append(n).append(" n=").append(n).append("i\n");
                }
            }
            Path p = dir.resolve(prefix + "-" + f + ".lp");
            Files.writeString(p, sb.toString());
            out.add(p.toString());
        }
        return out;
    }

    String[] args(Path state, List<String> files, String... more) {
        List<String> a = new ArrayList<>(List.of("--endpoint", testkit.server().endpoint(), "--http-endpoint",
                testkit.server().httpEndpoint(), "--state", state.toString(), "--batch", "200", "--parallelism", "2",
                "-q"));
        a.addAll(List.of(more));
        a.addAll(files);
        return a.toArray(new String[0]);
    }

    /** Runs the import in a child JVM and kills it twice while it writes; returns the files. */
    List<String> killedTwice(String prefix, Path state) throws Exception {
        List<String> files = files(prefix);
        long[] rowsBeforeKill = {1_000, 2_000};
        for (int k = 0; k < rowsBeforeKill.length; k++) {
            Path log = dir.resolve(prefix + "-" + k + ".log");
            CrashResumeTest.killWhileHeld(testkit.server(), prefix + "_a", rowsBeforeKill[k], state,
                    () -> CrashResumeTest.child(args(state, files), log), log);
        }
        return files;
    }

    @Test
    void theRerunsVerifyAgreesWithTheCompleteTables() throws Exception {
        Path state = dir.resolve("lpv.state");
        List<String> files = killedTwice("lpv", state);
        Cli.Run last = Cli.run(args(state, files, "--verify"));
        assertEquals(FILES * LINES / 2, testkit.server().rowCount("lpv_a"));
        assertEquals(0, last.code(), last.toString());
    }

    @Test
    void killedTwiceAndRunAgainEveryLineIsStoredOnceWithItsValues() throws Exception {
        Path state = dir.resolve("lp.state");
        List<String> files = killedTwice("lpk", state);
        Cli.Run last = Cli.run(args(state, files));
        assertEquals(0, last.code(), last.toString());

        for (String m : List.of("lpk_a", "lpk_b")) {
            Map<Long, Map<String, Object>> byN = new TreeMap<>();
            testkit.server().rows(m).forEach(r -> byN.put((Long) r.get("n"), r));
            assertEquals(FILES * LINES / 2, byN.size(), m);
            assertEquals(FILES * LINES / 2, testkit.server().rowCount(m), m);
            for (Map.Entry<Long, Map<String, Object>> e : byN.entrySet()) {
                long n = e.getKey();
                assertEquals(m.endsWith("_a") ? 0 : 1, n % 2);
                assertEquals("h" + n % 50, e.getValue().get("host"));
                assertEquals(n * 0.25, e.getValue().get("v"));
                assertEquals("row " + n, e.getValue().get("note"));
                assertEquals(T0 + n, e.getValue().get("greptime_timestamp"));
            }
        }
        List<Map<String, Object>> nots = testkit.server().rows("lpk_nots");
        assertEquals(FILES * LINES / 10, nots.size());
        Set<Object> times = new HashSet<>();
        nots.forEach(r -> times.add(r.get("greptime_timestamp")));
        assertEquals(1, times.size(), "lines without a timestamp share the import's time across runs: " + times);
        assertTrue(Files.readString(state).contains("\"importTimeNanos\" : " + times.iterator().next()),
                Files.readString(state));
    }

    @Test
    void anAppendModeImportKilledAndRunAgainNeverStoresALineTwiceWithoutBeingAsked() throws Exception {
        List<String> files = files("lpapp");
        Path state = dir.resolve("lpapp.state");
        String[] run = args(state, files, "--with", "append_mode=true");
        Path log = dir.resolve("lpapp.log");
        CrashResumeTest.killWhileHeld(testkit.server(), "lpapp_a", 600, state, () -> CrashResumeTest.child(run, log), log);
        assertEquals("true", testkit.server().tableOptions("public", "lpapp_a").get("append_mode"));

        Cli.Run rerun = Cli.run(run);
        if (rerun.code() != 0) {
            assertEquals(3, rerun.code(), rerun.toString());
            assertTrue(rerun.err().contains("--in-doubt"), rerun.err());
            List<String> skip = new ArrayList<>(List.of(run));
            skip.add(0, "--in-doubt=skip");
            Cli.Run skipped = Cli.run(skip.toArray(new String[0]));
            assertEquals(0, skipped.code(), skipped.toString());
        }
        for (String m : List.of("lpapp_a", "lpapp_b", "lpapp_nots")) {
            List<Map<String, Object>> rows = testkit.server().rows(m);
            Set<Object> distinct = new HashSet<>();
            rows.forEach(r -> distinct.add(r.get("n")));
            assertEquals(distinct.size(), rows.size(), m + " holds a line twice");
        }
    }
}
