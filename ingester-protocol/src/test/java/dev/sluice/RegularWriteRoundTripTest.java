package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RegularWriteRoundTripTest extends DefaultTestkitTest {



    private static final DecimalType MAX_PRECISION = new DecimalType(38, 4);

    static TableSchema allTypes(String name) {
        return TableSchema.newBuilder(name)
                .addTag("tag", DataType.String)
                .addField("b", DataType.Bool)
                .addField("i8", DataType.Int8).addField("i16", DataType.Int16)
                .addField("i32", DataType.Int32).addField("i64", DataType.Int64)
                .addField("u8", DataType.UInt8).addField("u16", DataType.UInt16)
                .addField("u32", DataType.UInt32).addField("u64", DataType.UInt64)
                .addField("f32", DataType.Float32).addField("f64", DataType.Float64)
                .addField("bin", DataType.Binary).addField("s", DataType.String)
                .addField("d", DataType.Date)
                .addField("ts_s", DataType.TimestampSecond).addField("ts_us", DataType.TimestampMicrosecond)
                .addField("ts_ns", DataType.TimestampNanosecond)
                .addField("t_s", DataType.TimeSecond).addField("t_ms", DataType.TimeMillisecond)
                .addField("t_us", DataType.TimeMicrosecond).addField("t_ns", DataType.TimeNanosecond)
                .addColumn("dec", SemanticType.Field, DataType.Decimal128, MAX_PRECISION)
                .addField("dec_default", DataType.Decimal128)
                .addField("j", DataType.Json)
                .addTimestamp("ts", DataType.TimestampMillisecond)
                .build();
    }

    @Test
    void everyTypeRoundTripsWithExtremesNullsAndSpecialValues() {
        TableSchema schema = allTypes("all_types");
        byte[] big = new byte[1 << 20];
        new Random(7).nextBytes(big);
        BigDecimal maxDec = new BigDecimal("9999999999999999999999999999999999.9999");
        Table t = Table.from(schema);
        // row 0: minimums, pre-1970 times
        t.addRow("min", false, Byte.MIN_VALUE, Short.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE,
                0, 0, 0L, 0L, -Float.MAX_VALUE, Double.NEGATIVE_INFINITY, new byte[0], "",
                LocalDate.of(1900, 1, 1), Instant.parse("1960-05-06T07:08:09Z"), -1L, Instant.parse("1969-12-31T23:59:59.999999999Z"),
                LocalTime.MIDNIGHT, 0, 0L, 0L, maxDec.negate(), new BigDecimal("-0.0000000001"), "[]", -86_400_000L);
        // row 1: maximums
        t.addRow("max", true, Byte.MAX_VALUE, Short.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE,
                255, 65_535, 4_294_967_295L, new BigInteger("18446744073709551615"), Float.MAX_VALUE, Double.POSITIVE_INFINITY,
                ByteBuffer.wrap(big), "héllo wörld ✓ 日本語 🚀", LocalDate.of(9999, 12, 31), Long.MAX_VALUE, Long.MAX_VALUE,
                Long.MAX_VALUE, LocalTime.of(23, 59, 59), 86_399_999, 86_399_999_999L, LocalTime.MAX,
                maxDec, new BigDecimal("1234567890123456789012345678.0123456789"),
                // the time index at the last millisecond whose one-day partition GreptimeDB can hold
                Map.of("k", List.of(1, "two", true)), 9_223_372_036_828_799_999L);
        // row 2: NaN and nulls everywhere nullable
        t.addRow("nulls", null, null, null, null, null, null, null, null, null, Float.NaN, Double.NaN, null, null,
                null, null, null, null, null, null, null, null, null, null, null, 0L);
        Result<WriteOk, Err> r = db.write(t).join();
        assertTrue(r.isOk(), () -> r.toString());
        assertEquals(3, r.getOk().affectedRows());

        List<Map<String, Object>> rows = server.rows("all_types");
        assertEquals(3, rows.size());
        Map<String, Object> min = rows.get(0);
        assertEquals(false, min.get("b"));
        assertEquals((long) Byte.MIN_VALUE, min.get("i8"));
        assertEquals((long) Short.MIN_VALUE, min.get("i16"));
        assertEquals((long) Integer.MIN_VALUE, min.get("i32"));
        assertEquals(Long.MIN_VALUE, min.get("i64"));
        assertEquals(0L, min.get("u8"));
        assertEquals(BigInteger.ZERO, min.get("u64"));
        assertEquals(-Float.MAX_VALUE, min.get("f32"));
        assertEquals(Double.NEGATIVE_INFINITY, min.get("f64"));
        assertArrayEquals(new byte[0], (byte[]) min.get("bin"));
        assertEquals("", min.get("s"));
        assertEquals(LocalDate.of(1900, 1, 1), min.get("d"));
        assertEquals(Instant.parse("1960-05-06T07:08:09Z").getEpochSecond(), min.get("ts_s"));
        assertEquals(-1L, min.get("ts_us"));
        assertEquals(-1L, min.get("ts_ns"));
        assertEquals(0L, min.get("t_s"));
        assertEquals(maxDec.negate(), min.get("dec"));
        assertEquals(new BigDecimal("-0.0000000001"), min.get("dec_default"));
        assertEquals("[]", min.get("j"));
        assertEquals(-86_400_000L, min.get("ts"));

        Map<String, Object> max = rows.get(1);
        assertEquals(true, max.get("b"));
        assertEquals((long) Byte.MAX_VALUE, max.get("i8"));
        assertEquals((long) Short.MAX_VALUE, max.get("i16"));
        assertEquals((long) Integer.MAX_VALUE, max.get("i32"));
        assertEquals(Long.MAX_VALUE, max.get("i64"));
        assertEquals(255L, max.get("u8"));
        assertEquals(65_535L, max.get("u16"));
        assertEquals(4_294_967_295L, max.get("u32"));
        assertEquals(new BigInteger("18446744073709551615"), max.get("u64"));
        assertEquals(Float.MAX_VALUE, max.get("f32"));
        assertEquals(Double.POSITIVE_INFINITY, max.get("f64"));
        assertArrayEquals(big, (byte[]) max.get("bin"));
        assertEquals("héllo wörld ✓ 日本語 🚀", max.get("s"));
        assertEquals(LocalDate.of(9999, 12, 31), max.get("d"));
        assertEquals(86_399L, max.get("t_s"));
        assertEquals(86_399_999L, max.get("t_ms"));
        assertEquals(86_399_999_999L, max.get("t_us"));
        assertEquals(LocalTime.MAX.toNanoOfDay(), max.get("t_ns"));
        assertEquals(maxDec, max.get("dec"));
        assertEquals(new BigDecimal("1234567890123456789012345678.0123456789"), max.get("dec_default"));
        assertEquals("{\"k\":[1,\"two\",true]}", max.get("j"));

        Map<String, Object> nulls = rows.get(2);
        assertTrue(Float.isNaN((Float) nulls.get("f32")));
        assertTrue(Double.isNaN((Double) nulls.get("f64")));
        for (String c : List.of("b", "i8", "i64", "u64", "bin", "s", "d", "ts_s", "t_ns", "dec", "j")) {
            assertNull(nulls.get(c), c);
        }
        TableSchema stored = server.schema("all_types");
        assertEquals(schema.columns(), stored.columns(), "the server created the table with the client's schema");
    }

    @Test
    void rowsReadBackInWriteOrderForManyRowsAndTables() {
        TableSchema a = TableSchema.newBuilder("rt_a").addTag("host", DataType.String)
                .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        TableSchema b = TableSchema.newBuilder("rt_b").addTag("k", DataType.Int32)
                .addField("text", DataType.String).addTimestamp("ts", DataType.TimestampNanosecond).build();
        Table ta = Table.from(a);
        Table tb = Table.from(b);
        for (int i = 0; i < 5_000; i++) {
            ta.addRow("h" + (i % 7), i * 0.5, 1_700_000_000_000L + i);
            tb.addRow(i % 3, "row " + i, (long) i);
        }
        Result<WriteOk, Err> r = db.write(ta, tb).join();
        assertTrue(r.isOk(), r::toString);
        assertEquals(10_000, r.getOk().affectedRows());
        assertEquals(List.of("rt_a", "rt_b"), r.getOk().tables());
        List<Map<String, Object>> rows = server.rows("rt_a");
        assertEquals(5_000, rows.size());
        assertEquals(2_499.5, rows.get(4_999).get("v"));
        assertEquals("row 4999", server.rows("rt_b").get(4_999).get("text"));
    }

    @Test
    void compressedRequestsStoreTheSameRows() {
        for (Compression c : List.of(Compression.None, Compression.Gzip, Compression.Zstd)) {
            String name = "compressed_" + c.name().toLowerCase();
            TableSchema s = TableSchema.newBuilder(name).addTag("host", DataType.String)
                    .addField("msg", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
            Table t = Table.from(s);
            for (int i = 0; i < 1_000; i++) {
                t.addRow("host-" + (i % 10), "a fairly repetitive log line number " + i, (long) i);
            }
            Result<WriteOk, Err> r = db.write(List.of(t), WriteOp.Insert, Context.newBuilder().compression(c).build()).join();
            assertTrue(r.isOk(), r::toString);
            assertEquals(1_000, server.rowCount(name));
            assertEquals("a fairly repetitive log line number 999", server.rows(name).get(999).get("msg"));
        }
    }

    @Test
    void stringsAreStoredExactlyForRandomUnicode() {
        TableSchema s = TableSchema.newBuilder("unicode").addField("s", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Random rnd = new Random(1);
        Table t = Table.from(s);
        String[] written = new String[200];
        for (int i = 0; i < written.length; i++) {
            StringBuilder sb = new StringBuilder();
            int len = rnd.nextInt(40);
            while (sb.length() < len) {
                int cp = rnd.nextInt(0x10FFFF);
                if (cp >= 0xD800 && cp <= 0xDFFF) {
                    continue;
                }
                sb.appendCodePoint(cp);
            }
            written[i] = sb.toString();
            t.addRow(written[i], (long) i);
        }
        assertTrue(db.write(t).join().isOk());
        List<Map<String, Object>> rows = server.rows("unicode");
        for (int i = 0; i < written.length; i++) {
            assertEquals(written[i], rows.get(i).get("s"));
            assertArrayEquals(written[i].getBytes(StandardCharsets.UTF_8),
                    ((String) rows.get(i).get("s")).getBytes(StandardCharsets.UTF_8));
        }
    }
}
