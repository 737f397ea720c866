package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A line protocol file whose string fields hold line breaks and lone carriage returns, with bad lines among them,
 * killed with kill -9 under --on-error skip and run again: every good line stored once with its value, and each bad
 * line named in the rejects file by its physical line number.
 */
class LineProtocolWithQuotedLineBreaksResumesAfterAKillTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    static final int RECORDS = 8_000;
    static final long T0 = 1_700_000_000_000_000_000L;

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
    }

    @Test
    void killedAndRunAgainEveryGoodLineIsStoredOnceAndEveryBadLineNamedByItsPhysicalLine() throws Exception {
        StringBuilder sb = new StringBuilder();
        List<Integer> badLines = new ArrayList<>();
        int line = 1;
        int good = 0;
        for (int n = 0; n < RECORDS; n++) {
            if (n % 1000 == 999) {
                badLines.add(line);
                sb.append("lpq,host=x n=oops ").append(T0 + n).append('\n');
                line += 1;
            } else {
                sb.append("lpq,host=h").append(n % 50).append(" n=").append(n).append("i,s=\"a\nb\r").append(n)
                        .append("\" ").append(T0 + n).append('\n');
                line += 2;
                good++;
            }
        }
        Path f = dir.resolve("q.lp");
        Files.writeString(f, sb.toString());
        Path state = dir.resolve("q.state");
        Path rejects = dir.resolve("q-rejects.jsonl");
        String[] args = {"--endpoint", testkit.server().endpoint(), "--http-endpoint", testkit.server().httpEndpoint(),
            "--state", state.toString(), "--batch", "200", "--parallelism", "2", "-q", "--on-error", "skip",
            "--rejects", rejects.toString(), f.toString()};
        Path log = dir.resolve("q.log");
        CrashResumeTest.killWhileHeld(testkit.server(), "lpq", 1_000, state, () -> CrashResumeTest.child(args, log), log);
        Cli.Run last = Cli.run(args);
        assertEquals(1, last.code(), last.toString());

        Map<Long, Map<String, Object>> byN = new TreeMap<>();
        testkit.server().rows("lpq").forEach(r -> byN.put((Long) r.get("n"), r));
        assertEquals(good, byN.size(), last.toString());
        assertEquals(good, testkit.server().rowCount("lpq"));
        for (Map.Entry<Long, Map<String, Object>> e : byN.entrySet()) {
            assertEquals("a\nb\r" + e.getKey(), e.getValue().get("s"));
            assertEquals(T0 + e.getKey(), e.getValue().get("greptime_timestamp"));
        }
        String rej = Files.readString(rejects);
        for (int l : badLines) {
            assertTrue(rej.contains("\"line\":" + l + ","), "line " + l + " not in rejects:\n" + rej);
        }
    }
}
