package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state file is one file however it is named: a second import given a symbolic link to the state file a
 * running import uses is refused like one given the same name, and the link is left a link.
 */
class StateFileReachedThroughASymlinkIsLockedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aSecondImportThroughALinkIsRefusedWhileTheFirstRuns() throws Exception {
        StringBuilder sb = new StringBuilder("id,v,ts\n");
        for (int i = 0; i < 3_000; i++) {
            sb.append(i).append(',').append(i / 2.0).append(',').append(1_700_000_000_000L + i).append('\n');
        }
        Path input = dir.resolve("linked.csv");
        Files.writeString(input, sb.toString());
        Path state = dir.resolve("real.state");
        Path link = dir.resolve("link.state");
        Files.createSymbolicLink(link, state.getFileName());
        List<String> common = List.of("-q", "--table", "linked", "--tags", "id", "--batch", "100", "--parallelism", "1");
        List<String> a = new ArrayList<>(common);
        a.addAll(List.of("--state", state.toString(), input.toString()));
        List<String> b = new ArrayList<>(common);
        b.addAll(List.of("--state", link.toString(), input.toString()));

        // The first import's second batch is stored and its answer held: it runs until the hold is released.
        java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
        testkit.server().faults().hold(Faults.HoldPoint.BEFORE_ANSWER,
                r -> r.tables().contains("linked") && seen.incrementAndGet() > 1);
        Path log = dir.resolve("first.log");
        Process first = CrashResumeTest.child(Cli.at(testkit.server(), a.toArray(new String[0])), log);
        Cli.Run second;
        try {
            CrashResumeTest.awaitHeldWhileAlive(testkit.server(), first, log);
            second = Cli.run(Cli.at(testkit.server(), b.toArray(new String[0])));
            assertTrue(first.isAlive(), "the refusal came while the first import still ran");
        } finally {
            testkit.server().faults().reset();
        }
        assertTrue(first.waitFor(10, TimeUnit.MINUTES), "the first import did not end");
        assertEquals(0, first.exitValue(), Files.readString(log));
        assertEquals(2, second.code(), "the same state file through a link: " + second);
        assertTrue(Files.isSymbolicLink(link), "the link was replaced by a file of its own");
    }
}
