package dev.sluice.importer.lpreference;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Runs a line protocol import under {@code --on-error skip} with a rejects file and reads what it left. */
final class LpProbe {
    /**
     * What one import left.
     *
     * @param run exit code and output
     * @param rejects the lines of the rejects file (empty when none)
     */
    record Result(Cli.Run run, List<String> rejects) {
        @Override
        public String toString() {
            return run + "\n--- rejects\n" + String.join("\n", rejects);
        }
    }

    private LpProbe() {
    }

    static Result skip(GreptimeTestServer server, Path dir, String name, byte[] content, String... extra)
            throws IOException {
        Path f = dir.resolve(name + ".lp");
        Files.write(f, content);
        Path rejects = dir.resolve(name + "-rejects.jsonl");
        List<String> args = new ArrayList<>(List.of("--format", "lp", "--on-error", "skip", "--rejects",
                rejects.toString(), "--state", dir.resolve(name + ".state").toString()));
        args.addAll(List.of(extra));
        args.add(f.toString());
        Cli.Run r = Cli.run(Cli.at(server, args.toArray(new String[0])));
        List<String> rej = Files.exists(rejects) ? Files.readAllLines(rejects) : List.of();
        return new Result(r, rej);
    }

    /** Imports {@code bad} as line 2 between two good lines: it is the one rejected row, its neighbours are stored. */
    static void refusedBetweenGoodLines(GreptimeTestServer server, Path dir, String table, byte[] bad)
            throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes((table + ",k=a v=1 1\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        b.writeBytes(bad);
        b.writeBytes(("\n" + table + ",k=c v=3 3\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Result r = skip(server, dir, table, b.toByteArray());
        org.junit.jupiter.api.Assertions.assertEquals(1, r.run().code(), r.toString());
        List<Map<String, Object>> rows = rowsByTime(server, table);
        org.junit.jupiter.api.Assertions.assertEquals(List.of("a", "c"), rows.stream().map(m -> m.get("k")).toList(),
                r.toString());
        org.junit.jupiter.api.Assertions.assertEquals(1, r.rejects().size(), r.toString());
        org.junit.jupiter.api.Assertions.assertTrue(r.rejects().get(0).contains("\"line\":2"), r.toString());
    }

    static List<Map<String, Object>> rowsByTime(GreptimeTestServer server, String table) {
        if (!server.tables().contains(table)) {
            return List.of();
        }
        List<Map<String, Object>> rows = new ArrayList<>(server.rows(table));
        rows.sort(Comparator.comparing(m -> (Long) m.get("greptime_timestamp")));
        return rows;
    }
}
