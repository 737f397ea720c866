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

/** Two imports sharing a state file: the second is refused while the first runs, and the first completes. */
class ConcurrentImportsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aSecondImportOfTheSameInputsIsRefusedWhileTheFirstRunsInAnotherProcess() throws Exception {
        List<String> files = new ArrayList<>();
        for (int f = 0; f < 3; f++) {
            StringBuilder sb = new StringBuilder("id,v,ts\n");
            for (int i = 0; i < 2_000; i++) {
                long id = f * 2_000L + i;
                sb.append(id).append(',').append(id / 2.0).append(',').append(1_700_000_000_000L + id).append('\n');
            }
            Path p = dir.resolve("part-" + f + ".csv");
            Files.writeString(p, sb.toString());
            files.add(p.toString());
        }
        List<String> a = new ArrayList<>(List.of("-q", "--table", "shared", "--tags", "id", "--batch", "100",
                "--parallelism", "1"));
        a.addAll(files);
        String[] args = Cli.at(testkit.server(), a.toArray(new String[0]));
        // The first import's second batch is stored and its answer held: it runs until the hold is released.
        java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
        testkit.server().faults().hold(Faults.HoldPoint.BEFORE_ANSWER,
                r -> r.tables().contains("shared") && seen.incrementAndGet() > 1);
        Path log = dir.resolve("first.log");
        Process first = CrashResumeTest.child(args, log);
        try {
            CrashResumeTest.awaitHeldWhileAlive(testkit.server(), first, log);

            Cli.Run second = Cli.run(args);
            assertEquals(2, second.code(), second.toString());
            assertTrue(second.err().contains("another import is running with the state file")
                    && second.err().contains("part-0.csv.import-state.json"), second.err());
            assertTrue(first.isAlive(), "the refusal came while the first import still ran");
        } finally {
            testkit.server().faults().reset();
        }
        assertTrue(first.waitFor(10, TimeUnit.MINUTES), "the first import did not end");
        assertEquals(0, first.exitValue(), Files.readString(log));
        assertEquals(6_000, testkit.server().rowCount("shared"));

        Cli.Run again = Cli.run(args);
        assertEquals(0, again.code(), "once the first has ended its state file is free: " + again);
    }
}
