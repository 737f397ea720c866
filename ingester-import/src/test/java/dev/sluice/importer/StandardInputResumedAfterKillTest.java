package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An import from standard input killed with kill -9 and run again on the same stream (same state file) continues
 * after its acknowledged records: the table then equals an uninterrupted import's, and the killed run's lock does
 * not keep the rerun out.
 */
class StandardInputResumedAfterKillTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
    }

    private Process childReading(Path stdin, String[] args, Path log) throws Exception {
        return new ProcessBuilder(CrashResumeTest.childCommand(List.of(), args)).redirectInput(stdin.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static List<Map<String, Object>> sorted(String table) {
        List<Map<String, Object>> rows = new ArrayList<>(testkit.server().rows(table));
        rows.sort(Comparator.comparing((Map<String, Object> m) -> (Long) m.get("ts")));
        return rows;
    }

    @Test
    void killedAndRunAgainOnTheSameStream() throws Exception {
        StringBuilder sb = new StringBuilder("host,ts,v\n");
        for (int i = 0; i < 20_000; i++) {
            sb.append('h').append(i % 20).append(',').append(1_700_000_000_000L + i).append(',').append(i * 0.5).append('\n');
        }
        Path data = dir.resolve("stream.data");
        Files.writeString(data, sb.toString());
        Path state = dir.resolve("stream.state");

        Cli.Run ref = StandardInputImportedAgainTest.fromStdin(sb.toString(), Cli.at(testkit.server(), "-q", "--format", "csv",
                "--table", "piped_ref", "--tags", "host", "--state", dir.resolve("ref.state").toString(), "-"));
        assertEquals(0, ref.code(), ref.toString());

        String[] args = Cli.at(testkit.server(), "-q", "--format", "csv", "--table", "piped_kill", "--tags", "host",
                "--batch", "500", "--in-flight", "2", "--state", state.toString(), "-");
        Path log = dir.resolve("killed.log");
        CrashResumeTest.killWhileHeld(testkit.server(), "piped_kill", 5_000, state, () -> childReading(data, args, log), log);
        assertTrue(Files.readString(state).contains("\"done\" : false"), Files.readString(state));

        Cli.Run again = StandardInputImportedAgainTest.fromStdin(sb.toString(), args);
        assertEquals(0, again.code(), again.toString());
        assertEquals(sorted("piped_ref"), sorted("piped_kill"));
    }
}
