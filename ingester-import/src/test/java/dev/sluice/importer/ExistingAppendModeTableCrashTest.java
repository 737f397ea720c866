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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table that keeps every row (append_mode, as SHOW CREATE TABLE says) is append-mode for every import into it,
 * not only the one that created it: an import into it killed with kill -9 and run again never stores a row twice
 * without being asked to.
 */
class ExistingAppendModeTableCrashTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
    }

    @Test
    void aSecondImportIntoTheAppendModeTableKilledAndRunAgainStoresNoRowTwice() throws Exception {
        Path first = dir.resolve("first.csv");
        Files.writeString(first, "host,ts,cpu\nh0,1600000000000,0.5\n");
        Cli.Run created = Cli.run(Cli.at(testkit.server(), "--table", "kept", "--tags", "host", "--with",
                "append_mode=true", "--state", dir.resolve("first.state").toString(), first.toString()));
        assertEquals(0, created.code(), created.toString());
        assertEquals("true", testkit.server().tableOptions("public", "kept").get("append_mode"));

        StringBuilder sb = new StringBuilder("host,ts,cpu\n");
        for (int i = 0; i < 20_000; i++) {
            sb.append('h').append(i % 50).append(',').append(1_700_000_000_000L + i).append(',').append(i * 0.25)
                    .append('\n');
        }
        Path second = dir.resolve("second.csv");
        Files.writeString(second, sb.toString());
        List<String> a = new ArrayList<>(List.of("--endpoint", testkit.server().endpoint(), "--http-endpoint",
                testkit.server().httpEndpoint(), "--table", "kept", "--tags", "host", "--state",
                dir.resolve("second.state").toString(), "--batch", "500", "--in-flight", "1", "--parallelism", "1",
                "-q", second.toString()));
        String[] run = a.toArray(new String[0]);

        // a batch is stored; its answer is held when the import is killed
        Path log = dir.resolve("second.log");
        CrashResumeTest.killWhileHeld(testkit.server(), "kept", 2_000, dir.resolve("second.state"),
                () -> CrashResumeTest.child(run, log), log);

        Cli.Run rerun = Cli.run(run);
        if (rerun.code() != 0) {
            assertTrue(rerun.err().contains("--in-doubt"), rerun.toString());
            List<String> skip = new ArrayList<>(a);
            skip.add(0, "--in-doubt=skip");
            assertEquals(0, Cli.run(skip.toArray(new String[0])).code());
        }
        List<Map<String, Object>> rows = testkit.server().rows("kept");
        Set<Object> keys = new HashSet<>();
        rows.forEach(m -> keys.add(m.get("ts")));
        assertEquals(keys.size(), rows.size(), "rows stored twice: " + (rows.size() - keys.size()));
    }
}
