package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The summary's figures agree with what the server stores and what the rejects file holds. */
class SummaryAgreesWithTheTableTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static long number(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":(\\d+)").matcher(json);
        assertTrue(m.find(), key + " in " + json);
        return Long.parseLong(m.group(1));
    }

    @Test
    void threeFilesReadInParallelWithRejectsCountWhatIsStored() throws IOException {
        Path parts = Files.createDirectory(dir.resolve("parts"));
        Set<Long> bad = new HashSet<>();
        for (int f = 0; f < 3; f++) {
            StringBuilder sb = new StringBuilder("id,v,ts\n");
            for (int i = 0; i < 3000; i++) {
                long n = f * 3000L + i;
                boolean b = n % 97 == 0;
                if (b) {
                    bad.add(n);
                }
                sb.append(n).append(',').append(b ? "bad" : n + ".5").append(',').append(1_700_000_000_000L + n)
                        .append('\n');
            }
            Files.writeString(parts.resolve("p" + f + ".csv"), sb.toString());
        }
        Path rejects = dir.resolve("parts.rejects.jsonl");
        Path json = dir.resolve("parts.summary.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "parts_summary", "--tags", "id", "--types", "v:Float64",
                "--batch", "100", "--parallelism", "3", "--on-error", "skip", "--rejects", rejects.toString(),
                "--verify", "--summary-json", json.toString(), parts.toString()));
        assertEquals(1, r.code(), r.toString());
        String s = Files.readString(json);
        List<java.util.Map<String, Object>> rows = testkit.server().rows("parts_summary");
        assertEquals(9000, number(s, "rowsRead"));
        assertEquals(rows.size(), number(s, "rowsWritten"), s);
        assertEquals(9000 - bad.size(), rows.size());
        assertEquals(bad.size(), number(s, "rowsRejected"), s);
        assertEquals(bad.size(), Files.readAllLines(rejects).size());
        assertEquals(rows.size(), number(s, "verifyCount"), s);
        assertTrue(s.contains("\"verifyOk\":true") && s.contains("\"exitCode\":1"), s);
        for (java.util.Map<String, Object> m : rows) {
            long id = (Long) m.get("id");
            assertTrue(!bad.contains(id));
            assertEquals(id + 0.5, m.get("v"));
            assertEquals(1_700_000_000_000L + id, m.get("ts"));
        }
    }

    @Test
    void rejectedRecordsAfterQuotedLineBreaksAreNamedByTheirPhysicalLine() throws IOException {
        Path f = dir.resolve("multiline.csv");
        Files.writeString(f, "id,v,note,ts\n1,1.5,\"two\nlines\",1700000000001\n2,oops,x,1700000000002\n"
                + "3,\"bad\nmulti\",y,1700000000003\n4,4.5,z,1700000000004\n");
        Path rejects = dir.resolve("multiline.rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--types", "v:Float64", "--tags", "id", "--on-error", "skip",
                "--rejects", rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("\"line\":4") && lines.get(0).contains("\"raw\":\"2,oops,x,1700000000002\""),
                lines.get(0));
        assertTrue(lines.get(1).contains("\"line\":5") && lines.get(1).contains("\"raw\":\"3,\\\"bad\\nmulti\\\",y,"),
                lines.get(1));
        assertEquals(2, testkit.server().rowCount("multiline"));
    }
}
