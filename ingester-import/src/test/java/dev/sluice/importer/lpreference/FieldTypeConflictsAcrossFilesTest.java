package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An integer field and a float field of one name, in two files read in parallel, land in one float column with
 * nothing lost; an integer that a float cannot hold exactly is a rejected row naming column and value.
 */
class FieldTypeConflictsAcrossFilesTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private Cli.Run importDir(String name, String a, String b, String... extra) throws Exception {
        Path d = Files.createDirectory(dir.resolve(name));
        Files.writeString(d.resolve("a.lp"), a);
        Files.writeString(d.resolve("b.lp"), b);
        List<String> args = new java.util.ArrayList<>(List.of("--format", "lp", "--on-error", "skip", "--rejects",
                dir.resolve(name + "-rej.jsonl").toString(), "--state", dir.resolve(name + ".state").toString()));
        args.addAll(List.of(extra));
        args.add(d.toString());
        return Cli.run(Cli.at(testkit.server(), args.toArray(new String[0])));
    }

    @Test
    void anIntegerFileAndAFloatFileInParallelAreBothStored() throws Exception {
        Cli.Run r = importDir("par", "lpconf v=1i 1000\n", "lpconf v=1.5 2000\n", "--parallelism", "4");
        assertEquals(0, r.code(), r.toString());
        assertEquals(List.of(1.0, 1.5), LpProbe.rowsByTime(testkit.server(), "lpconf").stream()
                .map(m -> m.get("v")).toList(), r.toString());
    }

    @Test
    void anIntegerFileAndAFloatFileOneAtATimeAreBothStored() throws Exception {
        Cli.Run r = importDir("seq", "lpconf1 v=1i 1000\n", "lpconf1 v=1.5 2000\n", "--parallelism", "1");
        assertEquals(0, r.code(), r.toString());
        assertEquals(List.of(1.0, 1.5), LpProbe.rowsByTime(testkit.server(), "lpconf1").stream()
                .map(m -> m.get("v")).toList(), r.toString());
    }

    @Test
    void aStringFileAndAFloatFileInParallelEndWithOneCleanRejectionNotAStop() throws Exception {
        Cli.Run r = importDir("strf", "lpstr v=\"x\" 1000\nlpstr w=1i 1500\n", "lpstr v=1.5 2000\n",
                "--parallelism", "4");
        assertEquals(1, r.code(), r.toString());
        List<String> rej = Files.readAllLines(dir.resolve("strf-rej.jsonl"));
        assertEquals(1, rej.size(), r.toString());
        assertEquals(2, LpProbe.rowsByTime(testkit.server(), "lpstr").size(), r + "\n" + rej);
    }

    @Test
    void anIntegerAFloatCannotHoldExactlyIsRejectedNamingColumnAndValue() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "prec",
                "lpprec v=1.5 1\nlpprec v=9007199254740993i 3\nlpprec v=4i 4\n".getBytes(UTF_8));
        assertEquals(1, r.run().code(), r.toString());
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "lpprec");
        assertEquals(List.of(1.5, 4.0), rows.stream().map(m -> m.get("v")).toList(), r.toString());
        assertEquals(1, r.rejects().size(), r.toString());
        String rej = r.rejects().get(0);
        assertTrue(rej.contains("\"line\":2") && rej.contains("'v'") && rej.contains("9007199254740993"), rej);
    }

    @Test
    void anIntegerFirstThenAFloatInOneFileIsNotRoundedEither() throws Exception {
        // the integer comes first: if the column becomes a float, the large integer must not be rounded silently
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "prec2",
                "lpprec2 v=9007199254740993i 1\nlpprec2 v=2.5 2\n".getBytes(UTF_8));
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "lpprec2");
        for (Map<String, Object> m : rows) {
            Object v = m.get("v");
            if (v instanceof Double d && d == 9007199254740992.0) {
                throw new AssertionError("9007199254740993 stored rounded as " + d + ": " + r);
            }
        }
        assertTrue(rows.size() + r.rejects().size() == 2, r.toString());
    }
}
