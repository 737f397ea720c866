package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.NanoTime;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Parquet files written here with every type GreptimeDB can hold, imported and compared cell by cell. */
class ParquetImportTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static final String ALL_TYPES = "message m {\n"
            + "  required int64 ts (TIMESTAMP(MILLIS,true));\n"
            + "  optional binary host (STRING);\n"
            + "  optional binary level (ENUM);\n"
            + "  optional int32 i8 (INTEGER(8,true));\n"
            + "  optional int32 i16 (INTEGER(16,true));\n"
            + "  optional int32 i32;\n"
            + "  optional int64 i64;\n"
            + "  optional int32 u8 (INTEGER(8,false));\n"
            + "  optional int32 u16 (INTEGER(16,false));\n"
            + "  optional int32 u32 (INTEGER(32,false));\n"
            + "  optional int64 u64 (INTEGER(64,false));\n"
            + "  optional float f32;\n"
            + "  optional double f64;\n"
            + "  optional boolean ok;\n"
            + "  optional binary raw;\n"
            + "  optional fixed_len_byte_array(3) fixed;\n"
            + "  optional int32 day (DATE);\n"
            + "  optional int32 t_ms (TIME(MILLIS,true));\n"
            + "  optional int64 t_us (TIME(MICROS,true));\n"
            + "  optional int64 t_ns (TIME(NANOS,true));\n"
            + "  optional int64 ts_us (TIMESTAMP(MICROS,true));\n"
            + "  optional int64 ts_ns (TIMESTAMP(NANOS,true));\n"
            + "  optional int64 ts_local (TIMESTAMP(MILLIS,false));\n"
            + "  optional int96 legacy;\n"
            + "  optional int32 d32 (DECIMAL(9,2));\n"
            + "  optional int64 d64 (DECIMAL(18,4));\n"
            + "  optional fixed_len_byte_array(16) dfix (DECIMAL(38,10));\n"
            + "  optional binary dbin (DECIMAL(20,3));\n"
            + "  optional fixed_len_byte_array(16) id (UUID);\n"
            + "}";

    static final long T0 = Instant.parse("2024-03-01T00:00:00Z").toEpochMilli();

    /** Row i of the all-types file; every optional column is NULL in row 3. */
    static Group row(org.apache.parquet.example.data.simple.SimpleGroupFactory f, int i) {
        Group g = f.newGroup().append("ts", T0 + i * 1000L);
        if (i == 3) {
            return g;
        }
        g.append("host", "web-" + (i % 2)).append("level", i % 2 == 0 ? "INFO" : "WARN")
                .append("i8", i == 0 ? -128 : i).append("i16", i == 0 ? -32768 : i * 300)
                .append("i32", i == 0 ? Integer.MIN_VALUE : i * 70_000).append("i64", i == 0 ? Long.MIN_VALUE : i * 5_000_000_000L)
                .append("u8", i == 0 ? 255 : i).append("u16", i == 0 ? 65_535 : i)
                .append("u32", i == 0 ? -1 : i).append("u64", i == 0 ? -1L : i)
                .append("f32", 1.5f * i).append("f64", i == 0 ? -0.0 : i / 3.0).append("ok", i % 2 == 0)
                .append("raw", Binary.fromConstantByteArray(new byte[] {0, (byte) i, (byte) 0xff}))
                .append("fixed", Binary.fromConstantByteArray(new byte[] {1, 2, (byte) i}))
                .append("day", (int) LocalDate.of(2024, 2, 29).plusDays(i).toEpochDay())
                .append("t_ms", 3_600_000 + i).append("t_us", 7_200_000_000L + i).append("t_ns", 86_399_999_999_999L - i)
                .append("ts_us", T0 * 1000 + i).append("ts_ns", T0 * 1_000_000 + i)
                .append("ts_local", T0 + 8 * 3_600_000L + i)
                .append("legacy", new NanoTime(2_460_371 + i, 1_000_000_123L))
                .append("d32", i == 0 ? -99_999_999 : i * 101).append("d64", 123_456_789_012_345_678L - i)
                .append("dfix", Binary.fromConstantByteArray(sixteen(new BigInteger("12345678901234567890123456789012345678")
                        .negate().add(BigInteger.valueOf(i)))))
                .append("dbin", Binary.fromConstantByteArray(BigInteger.valueOf(-12_345_678_901_234_567L - i).toByteArray()))
                .append("id", Binary.fromConstantByteArray(uuidBytes(new UUID(0x0123456789abcdefL, i))));
        return g;
    }

    static byte[] sixteen(BigInteger v) {
        byte[] b = v.toByteArray();
        byte[] out = new byte[16];
        byte pad = (byte) (v.signum() < 0 ? 0xff : 0);
        java.util.Arrays.fill(out, pad);
        System.arraycopy(b, 0, out, 16 - b.length, b.length);
        return out;
    }

    static byte[] uuidBytes(UUID u) {
        return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    }

    static List<Map<String, Object>> byTs(String table) {
        return testkit.server().rows(table).stream().sorted(Comparator.comparing(m -> (Long) m.get("ts")))
                .collect(Collectors.toList());
    }

    @Test
    void everyMappableTypeArrivesCellByCellWithTheTypesOfTheFilesSchema() throws IOException {
        Path file = dir.resolve("alltypes.parquet");
        ParquetFiles.write(file, ALL_TYPES, CompressionCodecName.SNAPPY, WriterVersion.PARQUET_1_0, 2, (f, out) -> {
            for (int i = 0; i < 5; i++) {
                out.accept(row(f, i));
            }
        });
        List<BlockMetaData> groups = ParquetFiles.rowGroups(file);
        assertEquals(3, groups.size(), "the file has three row groups");

        GreptimeTestServer server = testkit.server();
        Cli.Run r = Cli.run(Cli.at(server, "--tags", "host", "--timezone", "+08:00", file.toString()));
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("(bulk path)"), r.out());

        TableSchema s = server.schema("alltypes");
        Map<String, TableSchema.Column> cols = s.columns().stream()
                .collect(Collectors.toMap(TableSchema.Column::name, c -> c));
        assertEquals(SemanticType.Timestamp, cols.get("ts").semanticType());
        assertEquals(SemanticType.Tag, cols.get("host").semanticType());
        Map<String, DataType> expectedTypes = Map.ofEntries(Map.entry("ts", DataType.TimestampMillisecond),
                Map.entry("host", DataType.String), Map.entry("level", DataType.String),
                Map.entry("i8", DataType.Int8), Map.entry("i16", DataType.Int16), Map.entry("i32", DataType.Int32),
                Map.entry("i64", DataType.Int64), Map.entry("u8", DataType.UInt8), Map.entry("u16", DataType.UInt16),
                Map.entry("u32", DataType.UInt32), Map.entry("u64", DataType.UInt64), Map.entry("f32", DataType.Float32),
                Map.entry("f64", DataType.Float64), Map.entry("ok", DataType.Bool), Map.entry("raw", DataType.Binary),
                Map.entry("fixed", DataType.Binary), Map.entry("day", DataType.Date),
                Map.entry("t_ms", DataType.TimeMillisecond), Map.entry("t_us", DataType.TimeMicrosecond),
                Map.entry("t_ns", DataType.TimeNanosecond), Map.entry("ts_us", DataType.TimestampMicrosecond),
                Map.entry("ts_ns", DataType.TimestampNanosecond), Map.entry("ts_local", DataType.TimestampMillisecond),
                Map.entry("legacy", DataType.TimestampNanosecond), Map.entry("d32", DataType.Decimal128),
                Map.entry("d64", DataType.Decimal128), Map.entry("dfix", DataType.Decimal128),
                Map.entry("dbin", DataType.Decimal128), Map.entry("id", DataType.String));
        assertEquals(expectedTypes.size(), s.columnCount());
        expectedTypes.forEach((n, t) -> assertEquals(t, cols.get(n).dataType(), n));
        assertEquals(new DecimalType(9, 2), cols.get("d32").decimalType());
        assertEquals(new DecimalType(18, 4), cols.get("d64").decimalType());
        assertEquals(new DecimalType(38, 10), cols.get("dfix").decimalType());
        assertEquals(new DecimalType(20, 3), cols.get("dbin").decimalType());

        List<Map<String, Object>> rows = byTs("alltypes");
        assertEquals(5, rows.size());
        for (int i = 0; i < 5; i++) {
            Map<String, Object> m = rows.get(i);
            String at = "row " + i + ": " + m;
            assertEquals(T0 + i * 1000L, m.get("ts"), at);
            if (i == 3) {
                for (String c : expectedTypes.keySet()) {
                    if (!c.equals("ts")) {
                        assertNull(m.get(c), c + " in " + at);
                    }
                }
                continue;
            }
            assertEquals("web-" + (i % 2), m.get("host"), at);
            assertEquals(i % 2 == 0 ? "INFO" : "WARN", m.get("level"), at);
            assertEquals(i == 0 ? -128L : i, m.get("i8"), at);
            assertEquals(i == 0 ? -32768L : i * 300L, m.get("i16"), at);
            assertEquals(i == 0 ? (long) Integer.MIN_VALUE : i * 70_000L, m.get("i32"), at);
            assertEquals(i == 0 ? Long.MIN_VALUE : i * 5_000_000_000L, m.get("i64"), at);
            assertEquals(i == 0 ? 255L : i, m.get("u8"), at);
            assertEquals(i == 0 ? 65_535L : i, m.get("u16"), at);
            assertEquals(i == 0 ? 4_294_967_295L : i, m.get("u32"), at);
            assertEquals(i == 0 ? new BigInteger("18446744073709551615") : BigInteger.valueOf(i), m.get("u64"), at);
            assertEquals(1.5f * i, ((Number) m.get("f32")).floatValue(), at);
            assertEquals(i == 0 ? -0.0 : i / 3.0, m.get("f64"), at);
            assertEquals(i % 2 == 0, m.get("ok"), at);
            assertArrayEquals(new byte[] {0, (byte) i, (byte) 0xff}, (byte[]) m.get("raw"), at);
            assertArrayEquals(new byte[] {1, 2, (byte) i}, (byte[]) m.get("fixed"), at);
            assertEquals(LocalDate.of(2024, 2, 29).plusDays(i), m.get("day"), at);
            assertEquals(3_600_000L + i, m.get("t_ms"), at);
            assertEquals(7_200_000_000L + i, m.get("t_us"), at);
            assertEquals(86_399_999_999_999L - i, m.get("t_ns"), at);
            assertEquals(T0 * 1000 + i, m.get("ts_us"), at);
            assertEquals(T0 * 1_000_000 + i, m.get("ts_ns"), at);
            // Wall-clock time in +08:00 (--timezone): eight hours earlier in UTC.
            assertEquals(T0 + i, m.get("ts_local"), at);
            // Julian day 2460371 is 2024-03-01.
            assertEquals(Instant.parse("2024-03-01T00:00:01.000000123Z").plusSeconds(86_400L * i).getEpochSecond()
                    * 1_000_000_000L + 123, m.get("legacy"), at);
            assertEquals(BigDecimal.valueOf(i == 0 ? -99_999_999 : i * 101, 2), m.get("d32"), at);
            assertEquals(BigDecimal.valueOf(123_456_789_012_345_678L - i, 4), m.get("d64"), at);
            assertEquals(new BigDecimal(new BigInteger("12345678901234567890123456789012345678").negate()
                    .add(BigInteger.valueOf(i)), 10), m.get("dfix"), at);
            assertEquals(BigDecimal.valueOf(-12_345_678_901_234_567L - i, 3), m.get("dbin"), at);
            assertEquals(new UUID(0x0123456789abcdefL, i).toString(), m.get("id"), at);
        }
    }

    @ParameterizedTest
    @EnumSource(value = CompressionCodecName.class, names = {"UNCOMPRESSED", "GZIP", "ZSTD", "LZ4_RAW"})
    void dictionaryEncodedStringsInPagesOfEachCodecAndDataPageVersionTwoAreRead(CompressionCodecName codec) throws IOException {
        Path file = dir.resolve("codec_" + codec.name().toLowerCase() + ".parquet");
        ParquetFiles.write(file, "message m { required int64 time (TIMESTAMP(MICROS,true)); optional binary s (STRING); }",
                codec, WriterVersion.PARQUET_2_0, 1000, (f, out) -> {
                    for (int i = 0; i < 2500; i++) {
                        out.accept(f.newGroup().append("time", 1_000_000L * i).append("s", "v" + (i % 7)));
                    }
                });
        for (BlockMetaData g : ParquetFiles.rowGroups(file)) {
            ColumnChunkMetaData s = g.getColumns().get(1);
            assertTrue(s.getEncodings().contains(Encoding.RLE_DICTIONARY), "s is dictionary-encoded: " + s.getEncodings());
        }
        String table = "codec_" + codec.name().toLowerCase();
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--batch", "700", file.toString()));
        assertEquals(0, r.code(), r.toString());
        List<Map<String, Object>> rows = testkit.server().rows(table).stream()
                .sorted(Comparator.comparing(m -> (Long) m.get("time"))).collect(Collectors.toList());
        assertEquals(2500, rows.size());
        for (int i = 0; i < 2500; i++) {
            assertEquals(1_000_000L * i, rows.get(i).get("time"));
            assertEquals("v" + (i % 7), rows.get(i).get("s"));
        }
    }

    @Test
    void aNullTimeIndexIsABadRowNamingFileRowGroupAndRow() throws IOException {
        Path file = dir.resolve("nullts.parquet");
        ParquetFiles.write(file, "message m { optional int64 ts (TIMESTAMP(MILLIS,true)); optional double v; }",
                CompressionCodecName.SNAPPY, WriterVersion.PARQUET_1_0, 4, (f, out) -> {
                    for (int i = 1; i <= 10; i++) {
                        Group g = f.newGroup().append("v", i * 0.5);
                        if (i != 7) {
                            g.append("ts", T0 + i);
                        }
                        out.accept(g);
                    }
                });
        Path rejects = dir.resolve("nullts.rejects.jsonl");
        Cli.Run abort = Cli.run(Cli.at(testkit.server(), "--batch", "2", "--table", "nullts_abort", file.toString()));
        assertEquals(1, abort.code(), abort.toString());
        assertTrue(abort.err().contains("nullts.parquet' row group 2, row 3 (row 7 of the file), column 'ts': the time"
                + " index is empty"), abort.err());
        assertEquals(List.of(0.5, 1.0, 1.5, 2.0, 2.5, 3.0), testkit.server().rows("nullts_abort").stream()
                .map(m -> (Double) m.get("v")).sorted().toList());

        Cli.Run skip = Cli.run(Cli.at(testkit.server(), "--table", "nullts_skip", "--on-error", "skip", "--rejects",
                rejects.toString(), "--state", dir.resolve("skip.state").toString(), file.toString()));
        assertEquals(1, skip.code(), skip.toString());
        assertEquals(9, testkit.server().rowCount("nullts_skip"));
        String line = Files.readString(rejects, StandardCharsets.UTF_8).strip();
        assertTrue(line.contains("\"line\":7") && line.contains("row group 2, row 3")
                && line.contains("\\\"v\\\": 3.5") && line.contains("\\\"ts\\\": null"), line);
    }

    @Test
    void aColumnWithoutAGreptimeDbTypeIsNamedBeforeAnythingIsSentAndCanBeSkipped() throws IOException {
        Path file = dir.resolve("nested.parquet");
        ParquetFiles.write(file, "message m { required int64 ts (TIMESTAMP(MILLIS,true)); optional double v;"
                + " optional group tags (LIST) { repeated group list { optional binary element (STRING); } } }",
                CompressionCodecName.SNAPPY, WriterVersion.PARQUET_1_0, 100, (f, out) -> {
                    for (int i = 0; i < 3; i++) {
                        Group g = f.newGroup().append("ts", T0 + i).append("v", i + 0.5);
                        g.addGroup("tags").addGroup("list").append("element", "t" + i);
                        out.accept(g);
                    }
                });
        Cli.Run refused = Cli.run(Cli.at(testkit.server(), file.toString()));
        assertEquals(2, refused.code(), refused.toString());
        assertTrue(refused.err().contains("nested.parquet': column 'tags' (a nested group, list or map) cannot be stored"
                + " in a GreptimeDB column: leave it out with --skip"), refused.err());
        assertTrue(!testkit.server().tables().contains("nested"), "nothing was created");

        Cli.Run skipped = Cli.run(Cli.at(testkit.server(), "--skip", "tags", file.toString()));
        assertEquals(0, skipped.code(), skipped.toString());
        assertEquals(List.of(0.5, 1.5, 2.5), testkit.server().rows("nested").stream().map(m -> (Double) m.get("v"))
                .sorted().toList());
    }
}
