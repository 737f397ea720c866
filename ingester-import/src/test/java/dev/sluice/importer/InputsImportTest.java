package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.ZstdOutputStream;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Inputs given as compressed files, directories, globs and standard input. */
class InputsImportTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static String tsv(int from, int to) {
        StringBuilder sb = new StringBuilder("id\tv\tts\n");
        for (int i = from; i < to; i++) {
            sb.append("s").append(i).append('\t').append(i * 0.5).append('\t').append(1_700_000_000_000L + i).append('\n');
        }
        return sb.toString();
    }

    static void gzip(Path p, String text) throws IOException {
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(p))) {
            o.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    static void zstd(Path p, String text) throws IOException {
        try (OutputStream o = new ZstdOutputStream(Files.newOutputStream(p))) {
            o.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** id to (v, ts), read back from the server. */
    static Map<String, List<Object>> stored(GreptimeTestServer server, String table) {
        Map<String, List<Object>> out = new TreeMap<>();
        for (Map<String, Object> r : server.rows(table)) {
            out.put((String) r.get("id"), List.of(r.get("v"), r.get("ts")));
        }
        return out;
    }

    static Map<String, List<Object>> expected(int from, int to) {
        Map<String, List<Object>> out = new TreeMap<>();
        for (int i = from; i < to; i++) {
            out.put("s" + i, List.of(i * 0.5, 1_700_000_000_000L + i));
        }
        return out;
    }

    @Test
    void aDirectoryOfGzipAndZstdTsvFilesIsReadWhole() throws IOException {
        Path d = Files.createDirectories(dir.resolve("in"));
        gzip(d.resolve("a.tsv.gz"), tsv(0, 1500));
        zstd(d.resolve("b.tsv.zst"), tsv(1500, 3000));
        Files.writeString(d.resolve("c.tsv"), tsv(3000, 3100));
        Files.writeString(d.resolve("notes.txt"), "not an input");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "dir_tsv", "--tags", "id", "--batch", "700", d.toString()));
        assertEquals(0, r.code(), r.toString());
        assertEquals(expected(0, 3100), stored(testkit.server(), "dir_tsv"));
    }

    @Test
    void aGlobPicksOnlyTheFilesItMatches() throws IOException {
        Files.writeString(dir.resolve("m-1.tsv"), tsv(0, 10));
        Files.writeString(dir.resolve("m-2.tsv"), tsv(10, 20));
        Files.writeString(dir.resolve("other.tsv"), tsv(100, 110));
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "glob_tsv", "--tags", "id", dir + "/m-*.tsv"));
        assertEquals(0, r.code(), r.toString());
        assertEquals(expected(0, 20), stored(testkit.server(), "glob_tsv"));
    }

    @Test
    void standardInputNeedsAFormatAndIsDecompressedByItsMagicBytes() throws IOException {
        Path gz = dir.resolve("x.gz");
        gzip(gz, tsv(0, 50).replace('\t', ','));
        InputStream old = System.in;
        try {
            System.setIn(new ByteArrayInputStream(Files.readAllBytes(gz)));
            Cli.Run noFormat = Cli.run(Cli.at(testkit.server(), "--table", "stdin_csv", "-"));
            assertEquals(2, noFormat.code(), noFormat.toString());
            assertTrue(noFormat.err().contains("needs --format"), noFormat.err());
            System.setIn(new ByteArrayInputStream(Files.readAllBytes(gz)));
            Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "stdin_csv", "--format", "csv", "--tags", "id",
                    "--state", dir.resolve("stdin.state").toString(), "-"));
            assertEquals(0, r.code(), r.toString());
        } finally {
            System.setIn(old);
        }
        assertEquals(expected(0, 50), stored(testkit.server(), "stdin_csv"));
    }

    @Test
    void anArgumentMatchingNothingIsAUsageError() {
        Cli.Run r = Cli.run(Cli.at(testkit.server(), dir.resolve("missing.csv").toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("missing.csv"), r.err());
        Cli.Run g = Cli.run(Cli.at(testkit.server(), dir + "/*.nothing.csv"));
        assertEquals(2, g.code(), g.toString());
        assertTrue(g.err().contains("no file matches"), g.err());
    }
}
