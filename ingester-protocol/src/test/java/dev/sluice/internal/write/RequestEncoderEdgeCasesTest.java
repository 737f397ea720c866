package dev.sluice.internal.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.data.VectorType;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.write.WriteOp;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The direct encoder against the generated builders over edge values of every type, every null pattern, lengths
 * and row sizes at varint boundaries, large and split requests, several tables, many threads and refilled tables.
 */
class RequestEncoderEdgeCasesTest {
    static final byte[] HEADER = RequestEncoderTest.HEADER;
    static final AtomicLong CHECKS = new AtomicLong();

    // ---------------------------------------------------------------- helpers

    static byte[] reference(List<Table> tables, WriteOp op) throws Exception {
        return ReferenceEncoder.build(RequestHeader.parseFrom(HEADER), op, tables).toByteArray();
    }

    /** An OutputStream that records every write and checks the array is not reused while writing. */
    static final class Recording extends OutputStream {
        final ByteArrayOutputStream bos = new ByteArrayOutputStream();
        int writes;

        @Override
        public void write(int b) {
            bos.write(b);
            writes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (off < 0 || len < 0 || off + len > b.length) {
                throw new IndexOutOfBoundsException(off + "+" + len + " > " + b.length);
            }
            bos.write(b, off, len);
            writes++;
        }
    }

    static int[] scratchSizes(int size, Random r) {
        return new int[] {1, 2, 3, 4, 5, 6, 7, 9, 11, 16, 31, 64, 127, 128, 129, 255, 1000, 4096,
            Math.max(1, size / 2), Math.max(1, size - 1), size, size + 1, 1 + r.nextInt(Math.max(1, size))};
    }

    /** Every way of producing the bytes must give the reference bytes. */
    static void check(List<Table> tables, WriteOp op, String what) throws Exception {
        check(tables, op, what, true);
    }

    static void check(List<Table> tables, WriteOp op, String what, boolean manyScratch) throws Exception {
        byte[] expected = reference(tables, op);
        RequestEncoder e = new RequestEncoder(HEADER, op, tables);
        assertEquals(expected.length, e.size(), what + ": size");
        byte[] whole = new byte[e.size()];
        assertEquals(e.size(), e.encode(whole), what);
        assertArrayEquals(expected, whole, what + ": encode(byte[])");
        // into a larger, dirty array
        byte[] dirty = new byte[e.size() + 37];
        Arrays.fill(dirty, (byte) 0x5A);
        e.encode(dirty);
        assertArrayEquals(expected, Arrays.copyOf(dirty, e.size()), what + ": encode into dirty larger array");
        for (int i = e.size(); i < dirty.length; i++) {
            assertEquals((byte) 0x5A, dirty[i], what + ": wrote past size at " + i);
        }
        // again (a retry re-encodes)
        byte[] again = new byte[e.size()];
        e.encode(again);
        assertArrayEquals(expected, again, what + ": second encode");
        Random r = new Random(expected.length);
        int[] sizes = manyScratch ? scratchSizes(e.size(), r) : new int[] {1, 7, 1000, e.size() + 1};
        for (int s : sizes) {
            Recording out = new Recording();
            byte[] scratch = new byte[s];
            Arrays.fill(scratch, (byte) 0x33);
            e.writeTo(out, scratch);
            byte[] got = out.bos.toByteArray();
            if (!Arrays.equals(expected, got)) {
                fail(what + ": writeTo with scratch " + s + " differs at " + Arrays.mismatch(expected, got)
                        + " (len " + got.length + " vs " + expected.length + ")");
            }
        }
        // drained like gRPC does
        ByteArrayOutputStream drained = new ByteArrayOutputStream();
        assertEquals(e.size(), new EncodedRequestStream(e).drainTo(drained));
        assertArrayEquals(expected, drained.toByteArray(), what + ": drainTo");
        // read() fallback
        byte[] read = new EncodedRequestStream(e).readAllBytes();
        assertArrayEquals(expected, read, what + ": read fallback");
        // also parse back
        GreptimeRequest.parseFrom(whole);
        CHECKS.incrementAndGet();
    }

    static TableSchema oneColumn(DataType t, SemanticType role) {
        TableSchema.Builder b = TableSchema.newBuilder("t_" + t + "_" + role).addTag("h", DataType.String);
        if (t == DataType.Decimal128) {
            b.addColumn("v", role, t, new DecimalType(38, 0));
        } else if (t == DataType.Vector) {
            b.addColumn("v", role, t, new VectorType(3));
        } else {
            b.addColumn("v", role, t);
        }
        return b.addField("after", DataType.Int64).addTimestamp("ts", DataType.TimestampNanosecond).build();
    }

    static final String SURR = "\uD83D\uDE00";

    static List<Object> edges(DataType t) {
        BigInteger u64max = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
        switch (t) {
            case Bool: return List.of(true, false);
            case Int8: return List.of((byte) -128, (byte) 127, 0, -1, 1, 63, 64, -64, -65);
            case Int16: return List.of((short) -32768, (short) 32767, 0, -1, 127, 128, -129);
            case Int32: return List.of(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, 127, 128, 16383, 16384, -2);
            case Int64: return List.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 127L, 128L,
                    (long) Integer.MAX_VALUE + 1, (long) Integer.MIN_VALUE - 1, 1L << 62, -(1L << 62));
            case UInt8: return List.of(0, 255, 127, 128, 1);
            case UInt16: return List.of(0, 65535, 127, 128, 16384);
            case UInt32: return List.of(0L, 4294967295L, 2147483648L, 2147483647L, 127L, 128L);
            case UInt64: return List.of(0L, u64max, BigInteger.ONE.shiftLeft(63), Long.MAX_VALUE, 1L, 128L,
                    BigInteger.ONE.shiftLeft(63).add(BigInteger.ONE));
            case Float32: return List.of(Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
                    Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, 1.1f, Float.intBitsToFloat(0x7fc00001));
            case Float64: return List.of(Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                    Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 0.1,
                    Double.longBitsToDouble(0x7ff0000000000001L), Double.longBitsToDouble(0xfff8000000000123L));
            case String: return List.of("", "a", "é", "\u0000", "\u007f", "\u0080", "\u00ff", "\u0100", "✓", SURR,
                    "\uD800", "\uDC00x", "x\uD83D", "\uFFFF", "日本語テキスト", "x".repeat(124), "x".repeat(125),
                    "x".repeat(126), "x".repeat(127), "x".repeat(128), "é".repeat(63), "é".repeat(64),
                    "y".repeat(16_383), "y".repeat(16_384), "z".repeat(16_380) + SURR);
            case Json: return List.of("{}", "null", "[]", "\"\"", "{\"a\":\"é✓" + SURR + "\"}", "{\"k\":\"\\u0000\"}",
                    "{\"a\":\"" + "x".repeat(130) + "\"}", "1", "true");
            case Binary: return List.of(new byte[0], new byte[] {0}, new byte[] {(byte) 0xff, (byte) 0x80},
                    new byte[121], new byte[122], new byte[123], new byte[124], new byte[125], new byte[126],
                    new byte[127], new byte[128], new byte[16_383], new byte[16_384], new byte[70_000]);
            case Date: return List.of(0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, LocalDate.of(1900, 1, 1),
                    LocalDate.of(2262, 4, 11), 19_000);
            case Decimal128: return List.of(BigDecimal.ZERO, BigDecimal.ONE, BigDecimal.ONE.negate(),
                    new BigDecimal("99999999999999999999999999999999999999"),
                    new BigDecimal("-99999999999999999999999999999999999999"),
                    new BigDecimal(BigInteger.ONE.shiftLeft(63)), new BigDecimal(BigInteger.ONE.shiftLeft(64)),
                    new BigDecimal(BigInteger.ONE.shiftLeft(64).negate()), new BigDecimal(Long.MIN_VALUE),
                    new BigDecimal(u64max));
            case Vector: return List.of(new float[] {0f, -0f, Float.NaN}, new float[] {Float.POSITIVE_INFINITY, 1f, -1f},
                    new double[] {1e30, -1e-30, 0.1});
            case TimestampNanosecond: return List.of(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 1_700_000_000_000_000_000L);
            default: return List.of(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 1L, 127L, 128L, -128L, 86_399L);
        }
    }

    interface NullPattern {
        boolean isNull(int row, int rows);
    }

    static final String[] PATTERN_NAMES = {"none", "all", "every3rd", "firstOnly", "lastOnly", "row63", "row64", "random"};

    static boolean nullAt(int pattern, int row, int rows, Random r) {
        switch (pattern) {
            case 0: return false;
            case 1: return true;
            case 2: return row % 3 == 1;
            case 3: return row == 0;
            case 4: return row == rows - 1;
            case 5: return row == 63;
            case 6: return row == 64;
            default: return r.nextInt(4) == 0;
        }
    }

    // ---------------------------------------------------------------- tests

    @Test
    void everyTypeEveryEdgeValueEveryNullPatternAndRowCountInsertAndDelete() throws Exception {
        int[] rowCounts = {1, 2, 63, 64, 65, 128, 129, 200};
        List<String> skipped = new ArrayList<>();
        for (DataType t : DataType.values()) {
            for (SemanticType role : new SemanticType[] {SemanticType.Field, SemanticType.Tag}) {
                TableSchema s;
                try {
                    s = oneColumn(t, role);
                } catch (InvalidDataException ex) {
                    skipped.add(t + " as " + role + ": " + ex.getMessage());
                    continue;
                }
                List<Object> edges = new ArrayList<>();
                for (Object v : edges(t)) {
                    try {
                        Table.from(s).addRow("h", v, null, 0L);
                        edges.add(v);
                    } catch (InvalidDataException ex) {
                        skipped.add(t + " value " + v + ": " + ex.getMessage());
                    }
                }
                assertTrue(edges.size() >= 2, t + " as " + role + " has too few accepted edge values: " + skipped);
                for (int pattern = 0; pattern < PATTERN_NAMES.length; pattern++) {
                    for (int rows : rowCounts) {
                        Random rnd = new Random(pattern * 1000L + rows);
                        Table tab = Table.from(s);
                        for (int r = 0; r < rows; r++) {
                            Object v = nullAt(pattern, r, rows, rnd) ? null : edges.get(r % edges.size());
                            tab.addRow("h" + (r % 5), v, r % 2 == 0 ? null : (long) r * 1_000_003L, (long) r);
                        }
                        tab.complete();
                        for (WriteOp op : WriteOp.values()) {
                            check(List.of(tab), op, t + "/" + role + "/" + PATTERN_NAMES[pattern] + "/" + rows + "/" + op,
                                    rows <= 65);
                        }
                    }
                }
            }
        }
        assertTrue(CHECKS.get() > 1_000, "only " + CHECKS.get() + " requests compared");
    }

    static String randomText(Random r, int maxChars) {
        int n = r.nextInt(maxChars + 1);
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(8)) {
                case 0: b.append((char) r.nextInt(0x80)); break;
                case 1: b.append((char) (0x80 + r.nextInt(0x80))); break;
                case 2: b.append((char) (0x100 + r.nextInt(0x700))); break;
                case 3: b.append((char) (0x800 + r.nextInt(0xD000))); break;
                case 4: b.appendCodePoint(0x10000 + r.nextInt(0x100000)); break;
                case 5: b.append((char) (0xD800 + r.nextInt(0x800))); break; // unpaired surrogates
                case 6: b.append('\u0000'); break;
                default: b.append((char) ('a' + r.nextInt(26)));
            }
        }
        return b.toString();
    }

    @Test
    void wideRandomTablesWithAllTypesAndRandomNullDensity() throws Exception {
        TableSchema s = RequestEncoderTest.schema();
        for (long seed = 0; seed < 300; seed++) {
            Random r = new Random(seed);
            int rows = seed % 10 == 0 ? 1 : 1 + r.nextInt(300);
            double[] nullProb = new double[s.columnCount()];
            for (int c = 0; c < nullProb.length; c++) {
                int k = r.nextInt(4);
                nullProb[c] = k == 0 ? 0 : k == 1 ? 1 : k == 2 ? 0.01 : 0.5;
            }
            Table t = Table.from(s, 1);
            for (int row = 0; row < rows; row++) {
                Object[] v = new Object[s.columnCount()];
                for (int c = 0; c < v.length; c++) {
                    DataType type = s.column(c).dataType();
                    if (c == v.length - 1) {
                        v[c] = r.nextLong();
                        continue;
                    }
                    if (c > 1 && r.nextDouble() < nullProb[c]) {
                        continue;
                    }
                    if (c == 0) {
                        v[c] = randomText(r, 20);
                    } else if (c == 1) {
                        v[c] = r.nextInt();
                    } else if (type == DataType.String) {
                        v[c] = randomText(r, r.nextInt(5) == 0 ? 3000 : 140);
                    } else if (type == DataType.Decimal128 || type == DataType.Vector || type == DataType.Json
                            || type == DataType.Binary) {
                        Object x = RequestEncoderTest.randomValue(type, r);
                        while (x == null) {
                            x = RequestEncoderTest.randomValue(type, r);
                        }
                        v[c] = x;
                    } else {
                        List<Object> e = edges(type);
                        v[c] = e.get(r.nextInt(e.size()));
                    }
                }
                t.addRow(v);
            }
            for (WriteOp op : WriteOp.values()) {
                check(List.of(t), op, "seed " + seed + " " + op, false);
            }
        }
    }

    @Test
    void textAndBinaryOfEveryLengthNearVarintBoundaries() throws Exception {
        TableSchema s = TableSchema.newBuilder("txt").addTag("h", DataType.String).addField("s", DataType.String)
                .addField("b", DataType.Binary).addField("j", DataType.Json)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        List<Integer> lengths = new ArrayList<>();
        for (int n = 0; n <= 300; n++) {
            lengths.add(n);
        }
        for (int n = 16_370; n <= 16_400; n++) {
            lengths.add(n);
        }
        for (Integer n : lengths) {
            for (int variant = 0; variant < 3; variant++) {
                Table t = Table.from(s);
                String text = variant == 0 ? "a".repeat(n) : variant == 1 ? "é".repeat(n / 2) + "a".repeat(n % 2)
                        : "\u0000".repeat(n);
                String json = "\"" + "q".repeat(n) + "\"";
                t.addRow(variant == 2 ? text : "h", text, new byte[n], json, (long) n);
                t.addRow("h2", null, null, null, 1L);
                t.addRow("", text, new byte[n], json, 2L);
                for (WriteOp op : WriteOp.values()) {
                    check(List.of(t), op, "len " + n + " v" + variant + " " + op, n < 200);
                }
            }
        }
    }

    @Test
    void rowsWhoseSizeCrossesVarintBoundaries() throws Exception {
        TableSchema s = TableSchema.newBuilder("rows").addField("s", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(s);
        for (int n = 100; n < 140; n++) {
            t.addRow("r".repeat(n), (long) n);
        }
        for (int n = 16_360; n < 16_400; n++) {
            t.addRow("r".repeat(n), (long) n);
        }
        for (int n = 2_097_140; n < 2_097_160; n += 3) {
            t.addRow("R".repeat(n), (long) n);
        }
        check(List.of(t), WriteOp.Insert, "row sizes", false);
        check(List.of(t), WriteOp.Delete, "row sizes", false);
    }

    @Test
    void largeRequestsAndSingleHugeRowsStreamedThroughPooledArrays() throws Exception {
        TableSchema s = TableSchema.newBuilder("large").addTag("h", DataType.String).addField("msg", DataType.String)
                .addField("bin", DataType.Binary).addField("d", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        // many small rows > 1 MiB
        Table many = Table.from(s);
        Random r = new Random(5);
        for (int i = 0; i < 30_000; i++) {
            many.addRow("h" + (i % 7), i % 11 == 0 ? null : randomText(r, 40), i % 13 == 0 ? null : new byte[i % 50],
                    i % 3 == 0 ? null : r.nextDouble(), (long) i);
        }
        assertTrue(new RequestEncoder(HEADER, WriteOp.Insert, List.of(many)).size() > (1 << 20));
        check(List.of(many), WriteOp.Insert, "many rows", false);
        check(List.of(many), WriteOp.Delete, "many rows", false);
        // a single row larger than 1 MiB, between small rows, and alone
        String huge = "H".repeat(3 << 20) + "é" + SURR;
        Table one = Table.from(s).addRow("a", huge, new byte[1 << 20], 1.0, 1L);
        check(List.of(one), WriteOp.Insert, "one huge row", false);
        Table mixed = Table.from(s).addRow("a", "x", null, null, 0L).addRow("b", huge, new byte[5 << 20], 2.0, 1L)
                .addRow("c", "y", new byte[0], -0.0, 2L).addRow("d", huge, null, null, 3L);
        check(List.of(mixed), WriteOp.Insert, "mixed huge rows", false);
        check(List.of(mixed), WriteOp.Delete, "mixed huge rows", false);
    }

    @Test
    void requestsSizedAroundTheLargestPooledArray() throws Exception {
        TableSchema s = TableSchema.newBuilder("edge").addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        int base = new RequestEncoder(HEADER, WriteOp.Insert, List.of(Table.from(s).addRow("", 1L))).size();
        for (int target = EncodeBuffers.LARGEST_POOLED - 12; target <= EncodeBuffers.LARGEST_POOLED + 12; target++) {
            // find a text length giving exactly target bytes (varint lengths make some targets unreachable)
            int n = target - base - 6;
            Table t = null;
            for (int k = Math.max(0, n - 12); k <= n + 12; k++) {
                Table c = Table.from(s).addRow("m".repeat(k), 1L);
                if (new RequestEncoder(HEADER, WriteOp.Insert, List.of(c)).size() == target) {
                    t = c;
                    break;
                }
            }
            if (t == null) {
                continue;
            }
            check(List.of(t), WriteOp.Insert, "size " + target, false);
            // two rows: one small and one around the pooled size
            Table two = Table.from(s).addRow("a", 0L).addRow(t.column(0).getString(0), 1L);
            check(List.of(two), WriteOp.Insert, "two rows size " + target, false);
        }
    }

    @Test
    void splitsAtManyLimitsGiveBuilderIdenticalPartsUnderTheLimitAndEveryRowOnce() throws Exception {
        for (long seed = 0; seed < 12; seed++) {
            Random r = new Random(seed);
            List<Object[]> rows = RequestEncoderTest.randomRows(seed, 50 + r.nextInt(300));
            // make some rows big
            for (Object[] row : rows) {
                if (r.nextInt(20) == 0) {
                    row[RequestEncoderTest.schema().indexOf("c_String")] = randomText(r, 5000);
                }
            }
            Table whole = RequestEncoderTest.tableOf(rows);
            for (WriteOp op : WriteOp.values()) {
                RequestEncoder e = new RequestEncoder(HEADER, op, List.of(whole));
                for (int k = 0; k < 6; k++) {
                    int limit = 40 + r.nextInt(e.size());
                    List<RequestEncoder> parts = e.split(limit);
                    int from = 0;
                    for (RequestEncoder part : parts) {
                        assertTrue(part.size() <= limit || part.rowCount() == 1,
                                "part of " + part.size() + " over " + limit + " with " + part.rowCount() + " rows");
                        Table expected = RequestEncoderTest.tableOf(rows.subList(from, from + part.rowCount()));
                        byte[] want = reference(List.of(expected), op);
                        byte[] got = new byte[part.size()];
                        part.encode(got);
                        assertArrayEquals(want, got, "seed " + seed + " limit " + limit + " from " + from);
                        ByteArrayOutputStream bos = new ByteArrayOutputStream();
                        new EncodedRequestStream(part).drainTo(bos);
                        assertArrayEquals(want, bos.toByteArray());
                        Recording rec = new Recording();
                        part.writeTo(rec, new byte[1 + r.nextInt(300)]);
                        assertArrayEquals(want, rec.bos.toByteArray());
                        // split a part again
                        int sub = 40 + r.nextInt(Math.max(1, part.size()));
                        int subFrom = from;
                        for (RequestEncoder p2 : part.split(sub)) {
                            Table exp2 = RequestEncoderTest.tableOf(rows.subList(subFrom, subFrom + p2.rowCount()));
                            byte[] w2 = reference(List.of(exp2), op);
                            byte[] g2 = new byte[p2.size()];
                            p2.encode(g2);
                            assertArrayEquals(w2, g2, "re-split");
                            assertTrue(p2.size() <= sub || p2.rowCount() == 1);
                            subFrom += p2.rowCount();
                        }
                        assertEquals(from + part.rowCount(), subFrom);
                        from += part.rowCount();
                    }
                    assertEquals(rows.size(), from);
                }
            }
        }
    }

    @Test
    void multiTableRequestsIncludingTheSameTableTwiceAndMixedSchemas() throws Exception {
        TableSchema small = TableSchema.newBuilder("small").addTag("h", DataType.String)
                .addField("x", DataType.Float32).addTimestamp("ts", DataType.TimestampSecond).build();
        for (long seed = 0; seed < 30; seed++) {
            Random r = new Random(seed);
            List<Table> tables = new ArrayList<>();
            int n = 1 + r.nextInt(6);
            for (int i = 0; i < n; i++) {
                switch (r.nextInt(4)) {
                    case 0: tables.add(RequestEncoderTest.randomTable(seed * 10 + i, 1 + r.nextInt(80))); break;
                    case 1: {
                        Table t = Table.from(small);
                        for (int k = 0; k < 1 + r.nextInt(100); k++) {
                            t.addRow(k % 4 == 0 ? null : "h" + k, k % 5 == 0 ? null : (Object) r.nextFloat(), (long) k);
                        }
                        tables.add(t);
                        break;
                    }
                    case 2: if (!tables.isEmpty()) { tables.add(tables.get(r.nextInt(tables.size()))); break; }
                    // fall through
                    default: {
                        Table t = Table.from(small).addRow("big", 1.5f, 9L);
                        tables.add(t);
                    }
                }
            }
            for (WriteOp op : WriteOp.values()) {
                check(tables, op, "multi seed " + seed + " " + op, seed < 5);
            }
        }
        // multi-table larger than 1 MiB
        TableSchema logs = TableSchema.newBuilder("logs").addField("m", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table a = Table.from(logs);
        Table b = Table.from(logs);
        for (int i = 0; i < 400; i++) {
            a.addRow("a".repeat(3000) + i, (long) i);
            b.addRow(i % 2 == 0 ? null : "b".repeat(2000), (long) i);
        }
        check(List.of(a, b, a), WriteOp.Insert, "multi big", false);
    }

    @Test
    void manyThreadsEncodingTheSameAndDifferentTablesAtOnce() throws Exception {
        List<Table> tables = new ArrayList<>();
        List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            Table t = i % 4 == 3 ? bigLog(i) : RequestEncoderTest.randomTable(500 + i, 1 + 61 * i);
            t.complete();
            tables.add(t);
            expected.add(reference(List.of(t), i % 2 == 0 ? WriteOp.Insert : WriteOp.Delete));
        }
        ExecutorService pool = Executors.newFixedThreadPool(12);
        try {
            List<Future<Integer>> fs = new ArrayList<>();
            for (int w = 0; w < 12; w++) {
                int worker = w;
                fs.add(pool.submit(() -> {
                    Random r = new Random(worker);
                    int n = 0;
                    for (int k = 0; k < 80; k++) {
                        int i = r.nextInt(tables.size());
                        WriteOp op = i % 2 == 0 ? WriteOp.Insert : WriteOp.Delete;
                        RequestEncoder e = new RequestEncoder(HEADER, op, List.of(tables.get(i)));
                        ByteArrayOutputStream bos = new ByteArrayOutputStream();
                        if (k % 3 == 0) {
                            e.writeTo(bos, new byte[1 + r.nextInt(5000)]);
                        } else {
                            new EncodedRequestStream(e).drainTo(bos);
                        }
                        assertArrayEquals(expected.get(i), bos.toByteArray(), "table " + i);
                        n++;
                    }
                    return n;
                }));
            }
            for (Future<Integer> f : fs) {
                assertEquals(80, f.get(5, TimeUnit.MINUTES));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    static Table bigLog(int i) {
        TableSchema s = TableSchema.newBuilder("biglog" + i).addTag("h", DataType.String)
                .addField("m", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(s);
        for (int k = 0; k < 700; k++) {
            t.addRow("h" + k % 3, ("line " + k + " ").repeat(300), (long) k);
        }
        return t;
    }

    @Test
    void tablesRefilledAfterResetWithRejectedRowsAndCancelledAppenderRows() throws Exception {
        TableSchema s = TableSchema.newBuilder("refill").addTag("h", DataType.String)
                .addField("i", DataType.Int32).addField("f", DataType.Float64).addField("s", DataType.String)
                .addField("b", DataType.Bool).addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(s, 4);
        Random r = new Random(1);
        for (int fill = 0; fill < 30; fill++) {
            t.reset();
            int rows = 1 + r.nextInt(200);
            boolean nulls = fill % 2 == 0;
            for (int row = 0; row < rows; row++) {
                // a rejected row first, leaving partial state in the next row's slots
                if (r.nextInt(4) == 0) {
                    try {
                        t.addRow(null, null, null, null, null, null); // null time index is refused
                        fail("a null time index was accepted");
                    } catch (InvalidDataException expected) {
                        // expected
                    }
                    try {
                        t.addRow("x", 1, 1.0, "x", true, "not a timestamp");
                    } catch (InvalidDataException expected) {
                        // expected
                    }
                }
                if (r.nextInt(5) == 0) {
                    RowAppender a = t.appender();
                    a.setNull(1).setNull(2).setNull(3).setString(0, "cancelled");
                    a.cancelRow();
                }
                if (r.nextBoolean()) {
                    t.addRow(nulls && r.nextInt(3) == 0 ? null : "h" + row, nulls && r.nextInt(3) == 0 ? null : row,
                            nulls && r.nextInt(3) == 0 ? null : (Object) (row * 0.5),
                            nulls && r.nextInt(3) == 0 ? null : "s" + row,
                            nulls && r.nextInt(3) == 0 ? null : (Object) (row % 2 == 0), (long) row);
                } else {
                    RowAppender a = t.appender();
                    if (!(nulls && r.nextInt(3) == 0)) {
                        a.setString(0, "h" + row);
                    }
                    if (!(nulls && r.nextInt(3) == 0)) {
                        a.setLong(1, row);
                    }
                    if (!(nulls && r.nextInt(3) == 0)) {
                        a.setDouble(2, row * 0.25);
                    }
                    if (!(nulls && r.nextInt(3) == 0)) {
                        a.setString(3, "a" + row);
                    }
                    if (!(nulls && r.nextInt(3) == 0)) {
                        a.setBoolean(4, row % 3 == 0);
                    }
                    a.setLong(5, row);
                    a.endRow();
                }
            }
            assertEquals(rows, t.rowCount());
            for (WriteOp op : WriteOp.values()) {
                check(List.of(t), op, "fill " + fill + " " + op, false);
            }
            // and the values the server would decode
            GreptimeRequest req = GreptimeRequest.parseFrom(bytesOf(t));
            var decoded = req.getRowInserts().getInserts(0).getRows();
            assertEquals(rows, decoded.getRowsCount());
            for (int row = 0; row < rows; row++) {
                assertEquals(t.column(1).isNull(row),
                        decoded.getRows(row).getValues(1).getValueDataCase()
                                == dev.sluice.internal.wire.Value.ValueDataCase.VALUEDATA_NOT_SET);
                assertEquals((long) row, decoded.getRows(row).getValues(5).getTimestampMillisecondValue());
            }
        }
    }

    static byte[] bytesOf(Table t) {
        RequestEncoder e = new RequestEncoder(HEADER, WriteOp.Insert, List.of(t));
        byte[] b = new byte[e.size()];
        e.encode(b);
        return b;
    }

    @Test
    void decodedValuesMatchWhatWasAdded() throws Exception {
        // independent of the reference encoder: decode and compare against the Java values
        TableSchema s = TableSchema.newBuilder("vals").addTag("h", DataType.String).addField("u64", DataType.UInt64)
                .addField("u32", DataType.UInt32).addField("i8", DataType.Int8).addField("f32", DataType.Float32)
                .addField("f64", DataType.Float64).addField("s", DataType.String)
                .addTimestamp("ts", DataType.TimestampNanosecond).build();
        Random r = new Random(3);
        Table t = Table.from(s);
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Object[] row = {randomText(r, 10), new BigInteger(64, r), (long) r.nextInt() & 0xFFFFFFFFL,
                (byte) r.nextInt(), Float.intBitsToFloat(r.nextInt()), Double.longBitsToDouble(r.nextLong()),
                randomText(r, 200), r.nextLong()};
            rows.add(row);
            t.addRow(row);
        }
        var decoded = GreptimeRequest.parseFrom(bytesOf(t)).getRowInserts().getInserts(0).getRows();
        for (int i = 0; i < rows.size(); i++) {
            Object[] row = rows.get(i);
            var v = decoded.getRows(i);
            assertArrayEquals(((String) row[0]).getBytes(StandardCharsets.UTF_8), v.getValues(0).getStringValueBytes().toByteArray());
            assertEquals(((BigInteger) row[1]).longValue(), v.getValues(1).getU64Value());
            assertEquals((long) (Long) row[2], Integer.toUnsignedLong(v.getValues(2).getU32Value()));
            assertEquals((int) (Byte) row[3], v.getValues(3).getI8Value());
            float want = (Float) row[4];
            if (Float.isNaN(want)) {
                assertTrue(Float.isNaN(v.getValues(4).getF32Value()));
            } else {
                assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(v.getValues(4).getF32Value()),
                        "row " + i + " f32");
            }
            assertEquals(Double.doubleToRawLongBits((Double) row[5]), Double.doubleToRawLongBits(v.getValues(5).getF64Value()));
            assertArrayEquals(((String) row[6]).getBytes(StandardCharsets.UTF_8), v.getValues(6).getStringValueBytes().toByteArray());
            assertEquals((long) (Long) row[7], v.getValues(7).getTimestampNanosecondValue());
        }
    }

    @Test
    void anyNullAgreesWithIsNullForEveryRangeIncludingStaleBitsOutsideIt() {
        Random r = new Random(12);
        for (int trial = 0; trial < 300; trial++) {
            int n = 1 + r.nextInt(200);
            dev.sluice.internal.model.ArrayColumn c = new dev.sluice.internal.model.ArrayColumn(DataType.Int64, 1);
            int density = r.nextInt(4);
            for (int i = 0; i < n; i++) {
                c.ensureCapacity(i);
                boolean isNull = density == 0 ? false : density == 1 ? r.nextInt(60) == 0 : r.nextInt(3) == 0;
                if (isNull) {
                    c.setNull(i);
                } else {
                    c.setLong(i, i);
                }
            }
            for (int from = 0; from <= n; from++) {
                for (int to = from; to <= n; to++) {
                    boolean want = false;
                    for (int i = from; i < to; i++) {
                        want |= c.isNull(i);
                    }
                    if (want != c.anyNull(from, to)) {
                        fail("anyNull(" + from + ", " + to + ") of " + n + " rows: " + !want);
                    }
                }
            }
        }
    }

    @Test
    void splitPartsWhoseRangeHoldsTheOnlyNullAtTheirFirstOrLastRow() throws Exception {
        TableSchema s = TableSchema.newBuilder("onenull").addTag("h", DataType.String)
                .addField("f", DataType.Float64).addField("g", DataType.Float32).addField("s", DataType.String)
                .addField("b", DataType.Binary).addField("o", DataType.Bool).addField("i", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        int rows = 140;
        for (int k = 0; k < rows; k += 1) {
            List<Object[]> data = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                boolean nul = i == k;
                data.add(new Object[] {"h", nul ? null : (Object) (i * 1.5), nul ? null : (Object) (float) i,
                    nul ? null : "text" + i, nul ? null : new byte[] {(byte) i}, nul ? null : (Object) (i % 2 == 0),
                    nul ? null : (Object) (long) i, (long) i});
            }
            Table whole = Table.from(s);
            data.forEach(whole::addRow);
            for (WriteOp op : WriteOp.values()) {
                RequestEncoder e = new RequestEncoder(HEADER, op, List.of(whole));
                for (int div : new int[] {2, 3, 7, 13, 64}) {
                    int from = 0;
                    for (RequestEncoder part : e.split(e.size() / div)) {
                        Table exp = Table.from(s);
                        data.subList(from, from + part.rowCount()).forEach(exp::addRow);
                        byte[] want = reference(List.of(exp), op);
                        byte[] got = new byte[part.size()];
                        part.encode(got);
                        assertArrayEquals(want, got, "null at " + k + " div " + div + " from " + from);
                        Recording rec = new Recording();
                        part.writeTo(rec, new byte[1 + (k * 37) % 500]);
                        assertArrayEquals(want, rec.bos.toByteArray());
                        from += part.rowCount();
                    }
                    assertEquals(rows, from);
                }
            }
        }
    }

    /** Checks the piece sizes the stream sees: one write when the scratch array holds the request. */
    @Test
    void streamSeesOneWriteWhenTheScratchHoldsTheRequestAndPiecesNoLargerThanItOtherwise() throws Exception {
        for (long seed = 0; seed < 20; seed++) {
            Table t = RequestEncoderTest.randomTable(seed, 1 + (int) seed * 40);
            RequestEncoder e = new RequestEncoder(HEADER, WriteOp.Insert, List.of(t));
            List<Integer> sizes = new ArrayList<>();
            OutputStream out = new OutputStream() {
                @Override
                public void write(int b) {
                    sizes.add(1);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    sizes.add(len);
                }
            };
            e.writeTo(out, new byte[e.size()]);
            assertEquals(List.of(e.size()), sizes, "seed " + seed);
            sizes.clear();
            new EncodedRequestStream(e).drainTo(out);
            assertEquals(List.of(e.size()), sizes, "drained, seed " + seed);
        }
    }
}
