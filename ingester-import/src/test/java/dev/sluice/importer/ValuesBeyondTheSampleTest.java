package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A value after the sample that does not fit the inferred type is a bad row, never cut to fit. */
class ValuesBeyondTheSampleTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void csvDecimalsAndOverflowingIntegersInAnIntegerColumnAreRejectedWithTheirLines() throws IOException {
        Path f = dir.resolve("late.csv");
        Files.writeString(f, "id,n,ts\n1,5,1700000000001\n2,6,1700000000002\n3,7.9,1700000000003\n"
                + "4,99999999999999999999,1700000000004\n5,-9223372036854775808,1700000000005\n");
        Path rejects = dir.resolve("late.rejects.jsonl");
        Path json = dir.resolve("late.summary.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--sample", "2", "--tags", "id", "--on-error", "skip", "--rejects",
                rejects.toString(), "--summary-json", json.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        Map<Long, Object> n = new java.util.TreeMap<>();
        testkit.server().rows("late").forEach(m -> n.put((Long) m.get("id"), m.get("n")));
        assertEquals(Map.of(1L, 5L, 2L, 6L, 5L, Long.MIN_VALUE), n);
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(2, lines.size(), lines.toString());
        assertEquals("{\"source\":\"" + f + "\",\"line\":4,\"column\":\"n\",\"reason\":\"line 4, column 'n': '7.9' is not an"
                + " integer (Int64)\",\"raw\":\"3,7.9,1700000000003\"}", lines.get(0));
        assertTrue(lines.get(1).contains("\"line\":5") && lines.get(1).contains("99999999999999999999"), lines.get(1));
        String s = Files.readString(json);
        assertTrue(s.contains("\"rowsRead\":5") && s.contains("\"rowsWritten\":3") && s.contains("\"rowsRejected\":2")
                && s.contains("\"exitCode\":1"), s);
    }

    @Test
    void jsonLinesThatAreNotObjectsOrDoNotFitTheirColumnsAreRejectedWithTheirLines() throws IOException {
        Path f = dir.resolve("jl.jsonl");
        Files.writeString(f, "{\"id\":1,\"n\":1,\"b\":true,\"ts\":1704067200000}\n"
                + "{\"id\":2,\"n\":2.5,\"b\":true,\"ts\":1704067201000}\n"
                + "[1,2]\n"
                + "{\"id\":4,\"n\":4,\"b\":\"maybe\",\"ts\":1704067203000}\n"
                + "not json\n"
                + "{\"id\":6,\"n\":6,\"b\":false,\"ts\":1704067205000}\n");
        Path rejects = dir.resolve("jl.rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--sample", "1", "--tags", "id", "--on-error", "skip", "--rejects",
                rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        Map<Long, Object> n = new java.util.TreeMap<>();
        testkit.server().rows("jl").forEach(m -> n.put((Long) m.get("id"), m.get("n")));
        assertEquals(Map.of(1L, 1L, 6L, 6L), n);
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(4, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("\"line\":2") && lines.get(0).contains("2.5 does not fit Int64"), lines.get(0));
        assertTrue(lines.get(1).contains("\"line\":3") && lines.get(1).contains("is not a JSON object"), lines.get(1));
        assertTrue(lines.get(2).contains("\"line\":4") && lines.get(2).contains("\"column\":\"b\""), lines.get(2));
        assertTrue(lines.get(3).contains("\"line\":5") && lines.get(3).contains("not valid JSON"), lines.get(3));
    }
}
