package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * JSON Lines inputs, gzipped (bulk path) or with nested values (regular path), killed with kill -9 twice and run
 * again: the table equals an uninterrupted import's, row by row.
 */
class JsonLinesCrashResumeTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
    }

    private List<String> files(boolean nested) throws Exception {
        List<String> out = new ArrayList<>();
        for (int f = 0; f < 2; f++) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 10_000; i++) {
                long n = f * 10_000L + i;
                sb.append("{\"host\":\"h").append(n % 30).append("\",\"ts\":").append(1_700_000_000_000L + n).append(",\"cpu\":")
                        .append(n * 0.25).append(",\"note\":\"row ").append(n).append('"');
                if (nested) {
                    sb.append(",\"attrs\":{\"n\":").append(n).append(",\"tags\":[\"a\",\"b\"]}");
                }
                sb.append("}\n");
            }
            Path p = dir.resolve((nested ? "nested-" : "gz-") + f + (nested ? ".jsonl" : ".jsonl.gz"));
            if (nested) {
                Files.writeString(p, sb.toString());
            } else {
                try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(p))) {
                    o.write(sb.toString().getBytes(StandardCharsets.UTF_8));
                }
            }
            out.add(p.toString());
        }
        return out;
    }

    private String[] args(String table, Path state, List<String> files) {
        List<String> a = new ArrayList<>(List.of("-q", "--table", table, "--tags", "host", "--state", state.toString(),
                "--batch", "250", "--in-flight", "2", "--parallelism", "2"));
        a.addAll(files);
        return Cli.at(testkit.server(), a.toArray(new String[0]));
    }

    private static List<Map<String, Object>> sorted(String table) {
        List<Map<String, Object>> rows = new ArrayList<>(testkit.server().rows(table));
        rows.sort(Comparator.comparing((Map<String, Object> m) -> (Long) m.get("ts")));
        return rows;
    }

    private void killedTwiceThenCompleted(boolean nested) throws Exception {
        String kind = nested ? "nested" : "gz";
        List<String> files = files(nested);
        Cli.Run ref = Cli.run(args(kind + "_ref", dir.resolve(kind + "_ref.state"), files));
        assertEquals(0, ref.code(), ref.toString());
        List<Map<String, Object>> expected = sorted(kind + "_ref");
        assertEquals(20_000, expected.size());

        Path state = dir.resolve(kind + ".state");
        String table = kind + "_crashed";
        long[] rowsBeforeKill = {3_000, 6_000};
        for (int k = 0; k < rowsBeforeKill.length; k++) {
            Path log = dir.resolve(kind + "-" + k + ".log");
            CrashResumeTest.killWhileHeld(testkit.server(), table, rowsBeforeKill[k], state,
                    () -> CrashResumeTest.child(args(table, state, files), log), log);
        }
        Cli.Run last = Cli.run(args(table, state, files));
        assertEquals(0, last.code(), last.toString());
        assertEquals(expected, sorted(table));
    }

    @Test
    void gzippedOnTheBulkPath() throws Exception {
        killedTwiceThenCompleted(false);
    }

    @Test
    void nestedValuesOnTheRegularPath() throws Exception {
        killedTwiceThenCompleted(true);
    }
}
