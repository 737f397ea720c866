package dev.sluice.importer.lineprotocol;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Runs a line protocol import with {@code --on-error skip} and a rejects file, and reads what it left. */
final class LineProtocolRuns {
    /** One run: its output, the rejects file's lines and the summary as JSON. */
    record Skipped(Cli.Run run, List<String> rejects, String summary) {
    }

    private LineProtocolRuns() {
    }

    static Skipped skip(GreptimeTestServer server, Path dir, String name, byte[] content, String... more) {
        try {
            Path f = dir.resolve(name);
            Files.write(f, content);
            Path rejects = dir.resolve(name + ".rejects.jsonl");
            Path summary = dir.resolve(name + ".summary.json");
            List<String> args = new ArrayList<>(List.of("--format", "lp", "--on-error", "skip", "--rejects",
                    rejects.toString(), "--summary-json", summary.toString()));
            args.addAll(List.of(more));
            args.add(f.toString());
            Cli.Run r = Cli.run(Cli.at(server, args.toArray(new String[0])));
            return new Skipped(r, Files.exists(rejects) ? Files.readAllLines(rejects) : List.of(),
                    Files.exists(summary) ? Files.readString(summary) : "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Skipped skip(GreptimeTestServer server, Path dir, String name, String content, String... more) {
        return skip(server, dir, name, content.getBytes(java.nio.charset.StandardCharsets.UTF_8), more);
    }

    /** The rows the testkit stores for a table, in time index order. */
    static List<Map<String, Object>> rows(GreptimeTestServer server, String table) {
        List<Map<String, Object>> rows = new ArrayList<>(server.rows(table));
        rows.sort(Comparator.comparing(m -> (Long) m.get("greptime_timestamp")));
        return rows;
    }
}
