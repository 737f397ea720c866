package dev.sluice.bulk.internal;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/** Text of every length around the bulk sink's short-text path is stored as its UTF-8 bytes, whatever its characters. */
@SharesJvm
class BulkTextValuesTest {
    private static final ArrowTableBufferRoot.Guard NO_GUARD = new ArrowTableBufferRoot.Guard() {
        @Override
        public void enter() {
        }

        @Override
        public void exit(int rows) {
        }
    };

    static final String[] ODD = {"\u0000", "\u007f", "\u0080", "é", "\u00ff", "\u0100", "✓", "\uFFFF",
        "\uD83D\uDE00", "\uD800", "\uDC00", "\uDBFF\uDFFF"};

    static List<String> values() {
        List<String> out = new ArrayList<>();
        Random r = new Random(9);
        for (int n = 0; n <= 70; n++) {
            StringBuilder ascii = new StringBuilder();
            for (int i = 0; i < n; i++) {
                ascii.append((char) r.nextInt(0x80)); // includes NUL and 0x7F
            }
            String a = ascii.toString();
            out.add(a);
            for (String odd : ODD) {
                if (n >= odd.length()) {
                    out.add(odd + a.substring(odd.length()));
                    out.add(a.substring(odd.length()) + odd);
                    int mid = (n - odd.length()) / 2;
                    out.add(a.substring(0, mid) + odd + a.substring(mid + odd.length()));
                }
            }
            // all-Latin-1 of length n
            StringBuilder latin = new StringBuilder();
            for (int i = 0; i < n; i++) {
                latin.append((char) (0x80 + r.nextInt(0x80)));
            }
            out.add(latin.toString());
            out.add("\u0000".repeat(n));
            out.add("\u007f".repeat(n));
        }
        return out;
    }

    @Test
    void everyValueIsStoredAsItsUtf8BytesInOrderAndAfterLongerAndShorterValues() {
        List<String> vals = values();
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector v = new VarCharVector("t", allocator)) {
            v.allocateNew(16, 4); // tiny: forces growth
            ArrowColumnSink sink = new ArrowColumnSink(v);
            for (int fill = 0; fill < 3; fill++) {
                v.reset();
                sink.unbind();
                List<String> order = new ArrayList<>(vals);
                java.util.Collections.shuffle(order, new Random(fill));
                for (int r = 0; r < order.size(); r++) {
                    if (r % 7 == 3) {
                        sink.setNull(r);
                    } else {
                        sink.setText(r, order.get(r));
                    }
                }
                sink.finish(order.size());
                v.setValueCount(order.size());
                for (int r = 0; r < order.size(); r++) {
                    if (r % 7 == 3) {
                        assertTrue(v.isNull(r));
                    } else {
                        assertArrayEquals(order.get(r).getBytes(StandardCharsets.UTF_8), v.get(r),
                                "fill " + fill + " row " + r + " value " + escape(order.get(r)));
                    }
                }
            }
        }
    }

    @Test
    void aRowWrittenAgainOverAnEarlierValueKeepsOnlyTheNewValue() {
        List<String> vals = values();
        Random rnd = new Random(4);
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector v = new VarCharVector("t", allocator)) {
            v.allocateNew();
            ArrowColumnSink sink = new ArrowColumnSink(v);
            List<String> kept = new ArrayList<>();
            for (int r = 0; r < 2000; r++) {
                // write 1..3 times at the same row (a rejected row being overwritten), keep the last
                int times = 1 + rnd.nextInt(3);
                String last = null;
                for (int k = 0; k < times; k++) {
                    last = vals.get(rnd.nextInt(vals.size()));
                    sink.setText(r, last);
                }
                kept.add(last);
            }
            sink.finish(kept.size());
            v.setValueCount(kept.size());
            for (int r = 0; r < kept.size(); r++) {
                assertArrayEquals(kept.get(r).getBytes(StandardCharsets.UTF_8), v.get(r), "row " + r);
            }
        }
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return b.toString();
    }

    @Test
    void throughTheBatchWithRejectedRowsAppenderRowsAndSecondTextColumns() {
        TableSchema s = TableSchema.newBuilder("bt").addTag("h", DataType.String).addField("a", DataType.String)
                .addField("j", DataType.Json).addField("n", DataType.Int32)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        List<String> vals = values();
        Random rnd = new Random(11);
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableBufferRoot root = new ArrowTableBufferRoot(s, allocator, 8, Long.MAX_VALUE, NO_GUARD);
            List<String[]> kept = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                String h = vals.get(rnd.nextInt(vals.size()));
                String a = vals.get(rnd.nextInt(vals.size()));
                if (rnd.nextInt(4) == 0) {
                    // rejected: the text columns are written before the bad Int32
                    try {
                        root.addRow(vals.get(rnd.nextInt(vals.size())), vals.get(rnd.nextInt(vals.size())), null,
                                5_000_000_000L, (long) i);
                        fail("accepted an out-of-range int32");
                    } catch (InvalidDataException expected) {
                        // expected
                    }
                }
                if (rnd.nextInt(5) == 0) {
                    RowAppender ap = root.appender();
                    ap.setString(0, vals.get(rnd.nextInt(vals.size()))).setString(1, "cancelled value");
                    ap.cancelRow();
                }
                if (rnd.nextBoolean()) {
                    root.addRow(h, a, "{\"k\":" + i + "}", i, (long) i);
                } else {
                    root.appender().setString(0, h).setString(1, a).setString(2, "{\"k\":" + i + "}")
                            .setLong(3, i).setLong(4, i).endRow();
                }
                kept.add(new String[] {h, a});
            }
            root.complete();
            VarCharVector hv = (VarCharVector) root.vector(0);
            VarCharVector av = (VarCharVector) root.vector(1);
            assertEquals(kept.size(), root.rowCount());
            for (int r = 0; r < kept.size(); r++) {
                assertArrayEquals(kept.get(r)[0].getBytes(StandardCharsets.UTF_8), hv.get(r), "h row " + r);
                assertArrayEquals(kept.get(r)[1].getBytes(StandardCharsets.UTF_8), av.get(r), "a row " + r);
            }
            root.close();
        }
    }

    /** Long values (the ASCII scratch path and past its limit), with odd characters at either end and inside. */
    static List<String> longValues() {
        List<String> out = new ArrayList<>();
        Random r = new Random(13);
        for (int n : new int[] {64, 65, 2_000, 65_535, 65_536, 65_537, 100_000}) {
            StringBuilder ascii = new StringBuilder();
            for (int i = 0; i < n; i++) {
                ascii.append((char) r.nextInt(0x80));
            }
            String a = ascii.toString();
            out.add(a);
            for (String odd : ODD) {
                out.add(a.substring(odd.length()) + odd);
                out.add(a.substring(0, n / 2) + odd + a.substring(n / 2 + odd.length()));
            }
        }
        return out;
    }

    @Test
    void longTextAddedAsARowOrCopiedFromATableIsStoredAsItsUtf8Bytes() {
        TableSchema s = TableSchema.newBuilder("lt").addTag("h", DataType.String).addField("m", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        List<String> vals = longValues();
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableBufferRoot root = new ArrowTableBufferRoot(s, allocator, 8, Long.MAX_VALUE, NO_GUARD);
            dev.sluice.data.Table table = dev.sluice.data.Table.from(s);
            for (int i = 0; i < vals.size(); i++) {
                root.addRow("h", vals.get(i), (long) i);
                table.addRow("h", vals.get(vals.size() - 1 - i), (long) i);
            }
            root.addTable(table);
            root.complete();
            VarCharVector mv = (VarCharVector) root.vector(1);
            assertEquals(2 * vals.size(), root.rowCount());
            for (int r = 0; r < vals.size(); r++) {
                String added = vals.get(r);
                String copied = vals.get(vals.size() - 1 - r);
                assertArrayEquals(added.getBytes(StandardCharsets.UTF_8), mv.get(r),
                        "added row " + r + ", " + added.length() + " chars");
                assertArrayEquals(copied.getBytes(StandardCharsets.UTF_8), mv.get(vals.size() + r),
                        "copied row " + r + ", " + copied.length() + " chars");
            }
            root.close();
        }
    }
}
