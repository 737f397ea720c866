package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A Parquet STRING or ENUM value that is not well-formed UTF-8 is a bad row wherever it sits: the first row, inside or
 * after the sampled rows, the last row of a row group, a value repeated through a dictionary page. Aborting stores
 * nothing after it; skipping writes that row, with its own values, to the rejects file and stores every other row;
 * every stored string equals the file's, on both paths, under every codec.
 */
class ParquetTextThatIsNotUtf8IsABadRowWhereverItIsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    static final long T0 = 1_700_000_000_000L;
    static final String SCHEMA = "message m { required int64 ts (TIMESTAMP(MILLIS,true)); required int64 id;"
            + " optional binary s (STRING); optional binary e (ENUM); required binary mark (STRING); }";
    static final byte[] OVERLONG = {'a', (byte) 0xC0, (byte) 0x80};
    static final byte[] TRUNCATED = {(byte) 0xC3, (byte) 0xA9, 'o', 'k', (byte) 0xE2, (byte) 0x82};
    static final byte[] SURROGATE = {(byte) 0xED, (byte) 0xBF, (byte) 0xBF, 'z'};
    static final byte[] ABOVE_MAX = {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80};

    @TempDir
    Path dir;

    static String text(int i) {
        switch (i % 7) {
            case 0: return "\u00E9t\u00E9 " + i;
            case 1: return "";
            case 2: return "\u65E5\u672C\u8A9E".repeat(1 + i % 50);
            case 3: return "\uD83D\uDE00\u20AC" + i;
            case 4: return "ascii-" + i;
            case 5: return "\u0000nul\u007F\u0080\u07FF\u0800\uFFFD" + i;
            default: return "long " + "\u00FC".repeat(5000 + i);
        }
    }

    static String enumText(int i) {
        return new String[] {"r\u00F6t", "gr\u00FCn", "\u84DD", "\uD83D\uDFE6"}[i % 4];
    }

    static String mark(int i) {
        return "mark-" + i + "-\u00E9";
    }

    Path file(String name, CompressionCodecName codec, WriterVersion version, int rows, int perGroup,
            Map<Integer, byte[]> badS, Map<Integer, byte[]> badE) throws IOException {
        Path f = dir.resolve(name + ".parquet");
        ParquetFiles.write(f, SCHEMA, codec, version, perGroup, (g, out) -> {
            for (int i = 0; i < rows; i++) {
                Group row = g.newGroup().append("ts", T0 + i).append("id", (long) i).append("mark", mark(i));
                if (badS.containsKey(i)) {
                    row.append("s", Binary.fromConstantByteArray(badS.get(i)));
                } else if (i % 13 != 6) {
                    row.append("s", text(i));
                }
                if (badE.containsKey(i)) {
                    row.append("e", Binary.fromConstantByteArray(badE.get(i)));
                } else if (i % 11 != 3) {
                    row.append("e", enumText(i));
                }
                out.accept(row);
            }
        });
        return f;
    }

    static Map<Long, Map<String, Object>> byId(String table) {
        return Cli.byId(testkit.server(), table);
    }

    static void assertRowsAsWritten(String table, int rows, Set<Integer> left) {
        Map<Long, Map<String, Object>> got = byId(table);
        assertEquals(rows - left.size(), got.size(), table + " rows stored");
        for (int i = 0; i < rows; i++) {
            Map<String, Object> m = got.get((long) i);
            if (left.contains(i)) {
                assertTrue(m == null, table + " row " + i + " is a bad row and is not stored");
                continue;
            }
            assertTrue(m != null, table + " row " + i + " missing");
            assertEquals(i % 13 == 6 ? null : text(i), m.get("s"), table + " s of row " + i);
            assertEquals(i % 11 == 3 ? null : enumText(i), m.get("e"), table + " e of row " + i);
            assertEquals(mark(i), m.get("mark"), table + " mark of row " + i);
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"LZ4_RAW, PARQUET_2_0, bulk", "LZ4_RAW, PARQUET_1_0, regular", "UNCOMPRESSED, PARQUET_2_0, regular",
            "ZSTD, PARQUET_2_0, bulk", "GZIP, PARQUET_1_0, bulk", "SNAPPY, PARQUET_2_0, regular"})
    void badValuesAnywhereAreRejectedWithTheirOwnRowAndTheRestArriveAsWritten(CompressionCodecName codec,
            WriterVersion version, String path) throws IOException {
        String table = ("bad_" + codec + "_" + version + "_" + path).toLowerCase();
        // row 0: first row; 99: last row of the first group; 100: first of the next; 150: inside the sample;
        // 1203, 1299: after the sample, last row of a group; 1499: the last row of the file
        Map<Integer, byte[]> badS = Map.of(0, OVERLONG, 99, TRUNCATED, 150, SURROGATE, 1203, ABOVE_MAX, 1499, OVERLONG);
        Map<Integer, byte[]> badE = Map.of(100, TRUNCATED, 1299, SURROGATE);
        Set<Integer> bad = Set.of(0, 99, 100, 150, 1203, 1299, 1499);
        Path f = file(table, codec, version, 1500, 100, badS, badE);
        Path rejects = dir.resolve(table + ".rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--path", path, "--sample", "200", "--batch", "77", "--on-error",
                "skip", "--rejects", rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertRowsAsWritten(table, 1500, bad);
        List<String> lines = Files.readAllLines(rejects, StandardCharsets.UTF_8);
        assertEquals(bad.size(), lines.size(), String.join("\n", lines));
        for (int i : new int[] {0, 99, 100, 150, 1203, 1299, 1499}) {
            String line = lines.stream().filter(l -> l.contains("mark-" + i + "-")).findFirst().orElse(null);
            assertTrue(line != null, "no rejects line shows row " + i + "'s own values:\n" + String.join("\n", lines));
            String col = badE.containsKey(i) ? "'e'" : "'s'";
            assertTrue(line.contains("row group " + (i / 100 + 1) + ", row " + (i % 100 + 1)) && line.contains(col),
                    "row " + i + ": " + line);
            assertTrue(line.contains("UTF-8"), line);
        }
    }

    @Test
    void aBadValueRepeatedThroughADictionaryPageRejectsEachOfItsRows() throws IOException {
        Map<Integer, byte[]> badS = new java.util.HashMap<>();
        for (int i = 5; i < 1000; i += 50) {
            badS.put(i, SURROGATE);
        }
        Path f = file("dict_bad", CompressionCodecName.SNAPPY, WriterVersion.PARQUET_1_0, 1000, 400, badS, Map.of());
        Path rejects = dir.resolve("dict_bad.rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--on-error", "skip", "--rejects", rejects.toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertRowsAsWritten("dict_bad", 1000, badS.keySet());
        assertEquals(badS.size(), Files.readAllLines(rejects, StandardCharsets.UTF_8).size());
    }

    @ParameterizedTest(name = "bad row {0} on {1}")
    @CsvSource({"0, bulk", "0, regular", "37, bulk", "199, regular", "250, bulk", "1137, regular", "1499, bulk"})
    void abortingStopsAtTheBadRowNamingItAndStoresNothingAfterIt(int at, String path) throws IOException {
        String table = "abort_" + at + "_" + path;
        Path f = file(table, CompressionCodecName.ZSTD, WriterVersion.PARQUET_2_0, 1500, 250, Map.of(at, TRUNCATED),
                Map.of());
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--path", path, "--sample", "300", "--batch", "50", "--state",
                dir.resolve(table + ".state").toString(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains(table + ".parquet") && r.err().contains("row group " + (at / 250 + 1) + ", row "
                + (at % 250 + 1)) && r.err().contains("'s'") && r.err().contains("UTF-8"), r.err());
        long stored = testkit.server().tables().contains(table) ? testkit.server().rowCount(table) : 0;
        Map<Long, Map<String, Object>> got = stored == 0 ? Map.of() : byId(table);
        for (long id : got.keySet()) {
            assertTrue(id < at, "row " + id + " is at or after the bad row " + at + " and was stored");
        }
        for (int i = 0; i < got.size(); i++) {
            assertEquals(i % 13 == 6 ? null : text(i), got.get((long) i).get("s"), "row " + i);
        }
    }

    @Test
    void aResumedImportContinuesAfterTheAbortWithEveryRowOnce() throws IOException {
        Path f = file("resumed", CompressionCodecName.GZIP, WriterVersion.PARQUET_1_0, 2000, 300,
                Map.of(1234, ABOVE_MAX), Map.of(400, OVERLONG));
        Path state = dir.resolve("resumed.state");
        Cli.Run first = Cli.run(Cli.at(testkit.server(), "--sample", "100", "--batch", "64", "--state",
                state.toString(), f.toString()));
        assertEquals(1, first.code(), first.toString());
        for (long id : byId("resumed").keySet()) {
            assertTrue(id < 400, "row " + id + " stored after the abort at 400");
        }
        Cli.Run second = Cli.run(Cli.at(testkit.server(), "--sample", "100", "--batch", "64", "--state",
                state.toString(), "--on-error", "skip", "--rejects", dir.resolve("resumed.rejects").toString(),
                f.toString()));
        assertEquals(1, second.code(), second.toString());
        assertRowsAsWritten("resumed", 2000, Set.of(400, 1234));
        assertEquals(2000 - 2, testkit.server().rowCount("resumed"), "every row once");
    }

    @Test
    void aDryRunShowsNonAsciiStringsAsWritten() throws IOException {
        Path f = file("dry", CompressionCodecName.SNAPPY, WriterVersion.PARQUET_2_0, 50, 20, Map.of(), Map.of());
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--dry-run", f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertFalse(testkit.server().tables().contains("dry"), "a dry run stores nothing");
        for (int i : new int[] {0, 2, 7, 9}) {
            assertTrue(r.out().contains("\t" + i + "\t" + text(i) + "\t" + enumText(i) + "\t" + mark(i)),
                    "row " + i + " as written:\n" + r.out());
        }
        assertFalse(r.out().contains("\u00C3\u00A9"), "no mojibake of \u00E9: " + r.out());
    }

    @Test
    void aStringColumnOverriddenAsAnIntegerIsParsedFromItsText() throws IOException {
        Path f = dir.resolve("as_int.parquet");
        ParquetFiles.write(f, "message m { required int64 ts (TIMESTAMP(MILLIS,true)); required binary v (STRING); }",
                CompressionCodecName.LZ4_RAW, WriterVersion.PARQUET_2_0, 100, (g, out) -> {
                    for (int i = 0; i < 700; i++) {
                        out.accept(g.newGroup().append("ts", T0 + i).append("v", Long.toString(i * 1_000_003L - 300_000)));
                    }
                });
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--types", "v:Int64", "--sample", "50", f.toString()));
        assertEquals(0, r.code(), r.toString());
        List<Map<String, Object>> rows = testkit.server().rows("as_int");
        assertEquals(700, rows.size());
        for (Map<String, Object> m : rows) {
            long i = ((Number) (m.get("ts") instanceof java.time.Instant in ? in.toEpochMilli()
                    : m.get("ts") instanceof java.sql.Timestamp t ? t.getTime() : (Number) m.get("ts"))).longValue() - T0;
            assertEquals(i * 1_000_003L - 300_000, ((Number) m.get("v")).longValue());
        }
    }
}
