package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parquet strings are stored with exactly the characters the file holds, whatever their length, script or page
 * encoding, on either path; a value that is not UTF-8 is a bad row naming its column, and only that row is left out.
 */
class ParquetStringsArriveAsWrittenTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    static final long T0 = 1_700_000_000_000L;
    static final String SCHEMA = "message m { required int64 ts (TIMESTAMP(MILLIS,true)); required int64 id;"
            + " optional binary s (STRING); optional binary n (STRING); }";

    @TempDir
    Path dir;

    /** The text of row {@code i}: ASCII, accented, symbols and emoji, empty, and long values, some repeated. */
    static String text(int i) {
        switch (i % 6) {
            case 0: return "plain " + i;
            case 1: return "héllo wörld " + (i % 3);
            case 2: return "€ ≠ 😀 " + i;
            case 3: return "";
            case 4: return "x".repeat(3000 + i) + "é";
            default: return "日本語のテキスト".repeat(200) + i;
        }
    }

    Path file(String name, CompressionCodecName codec, WriterVersion version, int rows, Map<Integer, byte[]> raw)
            throws IOException {
        Path f = dir.resolve(name + ".parquet");
        ParquetFiles.write(f, SCHEMA, codec, version, 250, (g, out) -> {
            for (int i = 0; i < rows; i++) {
                Group row = g.newGroup().append("ts", T0 + i).append("id", (long) i).append("n", Integer.toString(i));
                if (raw.containsKey(i)) {
                    row.append("s", Binary.fromConstantByteArray(raw.get(i)));
                } else if (i % 17 != 5) {
                    row.append("s", text(i));
                }
                out.accept(row);
            }
        });
        return f;
    }

    static Map<Long, Map<String, Object>> byId(String table) {
        return Cli.byId(testkit.server(), table);
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"UNCOMPRESSED, PARQUET_1_0, bulk", "SNAPPY, PARQUET_2_0, bulk", "ZSTD, PARQUET_1_0, regular",
            "GZIP, PARQUET_2_0, regular"})
    void everyStringArrivesCharacterForCharacter(CompressionCodecName codec, WriterVersion version, String path)
            throws IOException {
        String table = ("strings_" + codec + "_" + path).toLowerCase();
        Path f = file(table, codec, version, 1000, Map.of());
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--path", path, "--batch", "300", "--tags", "id", f.toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Map<String, Object>> rows = byId(table);
        assertEquals(1000, rows.size());
        for (int i = 0; i < 1000; i++) {
            Object expected = i % 17 == 5 ? null : text(i);
            assertEquals(expected, rows.get((long) i).get("s"), "row " + i);
            assertEquals(Integer.toString(i), rows.get((long) i).get("n"));
        }
    }

    @Test
    void aStringColumnOverriddenAsAnIntegerIsParsedFromItsText() throws IOException {
        Path f = file("as_int", CompressionCodecName.SNAPPY, WriterVersion.PARQUET_1_0, 600, Map.of());
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--types", "n:Int64", "--skip", "s", f.toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Map<String, Object>> rows = byId("as_int");
        assertEquals(600, rows.size());
        rows.forEach((id, m) -> assertEquals(id, m.get("n")));
    }

    @Test
    void aValueThatIsNotUtf8IsABadRowNamingItsColumnAndTheOthersArrive() throws IOException {
        byte[] bad = {'o', 'k', (byte) 0xC3, '(', 'x'};
        byte[] surrogate = {'a', (byte) 0xED, (byte) 0xA0, (byte) 0x80};
        Path f = file("bad_utf8", CompressionCodecName.SNAPPY, WriterVersion.PARQUET_1_0, 700,
                Map.of(300, bad, 601, surrogate));
        Path rejects = dir.resolve("bad_utf8.rejects.jsonl");
        Cli.Run skip = Cli.run(Cli.at(testkit.server(), "--on-error", "skip", "--rejects", rejects.toString(),
                f.toString()));
        assertEquals(1, skip.code(), skip.toString());
        Map<Long, Map<String, Object>> rows = byId("bad_utf8");
        assertEquals(698, rows.size());
        assertTrue(!rows.containsKey(300L) && !rows.containsKey(601L), "the two bad rows are left out");
        assertEquals(text(301), rows.get(301L).get("s"));
        assertEquals(text(602), rows.get(602L).get("s"));
        String lines = Files.readString(rejects, StandardCharsets.UTF_8);
        assertEquals(2, lines.strip().split("\n").length, lines);
        assertTrue(lines.contains("column 's'") && lines.contains("not well-formed UTF-8 (byte 2 of 5")
                && lines.contains("(byte 1 of 4") && lines.contains("row group 2, row 51 (row 301 of the file)"), lines);

        Cli.Run abort = Cli.run(Cli.at(testkit.server(), "--table", "bad_utf8_abort", "--batch", "100", "--state",
                dir.resolve("abort.state").toString(), f.toString()));
        assertEquals(1, abort.code(), abort.toString());
        assertTrue(abort.err().contains("column 's': the text is not well-formed UTF-8"), abort.err());
        assertEquals(300, testkit.server().rowCount("bad_utf8_abort"), "the rows before the bad one, and none after");
    }
}
