package dev.sluice.bulk.internal;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/**
 * Text of every length around the sink's cache threshold (short values encoded afresh, long ones through the
 * column's cache) is stored as given, over several fills of the same vector with repeated and new instances.
 */
@SharesJvm
class ArrowColumnSinkTextTest {
    static String text(int chars, int seed) {
        StringBuilder b = new StringBuilder(chars);
        for (int i = 0; b.length() < chars; i++) {
            b.append(i % 7 == 3 ? 'é' : (char) ('a' + (i + seed) % 26)); // some two-byte characters
        }
        return b.toString();
    }

    @Test
    void shortAndLongTextAroundTheCacheThresholdIsStoredAsGivenFillAfterFill() {
        int[] lengths = {0, 1, ArrowColumnSink.CACHED_MIN_CHARS - 1, ArrowColumnSink.CACHED_MIN_CHARS,
            ArrowColumnSink.CACHED_MIN_CHARS + 1, 2_000};
        String[] pool = new String[lengths.length * 3];
        for (int i = 0; i < pool.length; i++) {
            pool[i] = text(lengths[i % lengths.length], i);
        }
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector v = new VarCharVector("t", allocator)) {
            v.allocateNew();
            ArrowColumnSink sink = new ArrowColumnSink(v);
            for (int fill = 0; fill < 4; fill++) {
                v.reset();
                sink.unbind();
                int rows = 500;
                for (int r = 0; r < rows; r++) {
                    // pooled instances repeat; every third row is a new, equal instance
                    String s = r % 3 == 0 ? new String(pool[r % pool.length]) : pool[r % pool.length];
                    sink.setText(r, s);
                }
                sink.finish(rows);
                v.setValueCount(rows);
                for (int r = 0; r < rows; r++) {
                    assertEquals(pool[r % pool.length], new String(v.get(r), StandardCharsets.UTF_8),
                            "fill " + fill + ", row " + r);
                }
            }
        }
    }

    @Test
    void shortTextOfEveryLengthWithAndWithoutNonAsciiCharactersAnywhereIsStoredAsGiven() {
        java.util.List<String> values = new java.util.ArrayList<>();
        for (int n = 0; n < ArrowColumnSink.CACHED_MIN_CHARS; n++) {
            StringBuilder ascii = new StringBuilder();
            for (int i = 0; i < n; i++) {
                ascii.append((char) (i % 3 == 0 ? 0x7F : ' ' + (i * 7 + n) % 95));
            }
            values.add(ascii.toString());
            for (String odd : new String[] {"é", "✓", "\uD83D\uDE00", "\u0080"}) {
                if (n >= odd.length()) {
                    values.add(odd + ascii.substring(odd.length()));
                    values.add(ascii.substring(odd.length()) + odd);
                }
            }
        }
        java.util.List<byte[]> stored = storedOneByOne(values);
        for (int r = 0; r < values.size(); r++) {
            assertEquals(values.get(r), new String(stored.get(r), StandardCharsets.UTF_8), "row " + r);
        }
    }

    /** Stores each value in its own row of one text vector through a sink; returns each row's bytes. */
    static java.util.List<byte[]> storedOneByOne(java.util.List<String> values) {
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector v = new VarCharVector("t", allocator)) {
            v.allocateNew();
            ArrowColumnSink sink = new ArrowColumnSink(v);
            for (int r = 0; r < values.size(); r++) {
                sink.setText(r, values.get(r));
            }
            sink.finish(values.size());
            v.setValueCount(values.size());
            java.util.List<byte[]> stored = new java.util.ArrayList<>();
            for (int r = 0; r < values.size(); r++) {
                stored.add(v.get(r));
            }
            return stored;
        }
    }

    /**
     * Long text is stored as {@code String.getBytes(UTF_8)} gives it, whatever it holds and wherever: Latin-1
     * characters above ASCII (one byte in memory, two in UTF-8), characters whose low byte is ASCII (a narrowing copy
     * would pass them for ASCII), four-byte code points, and unpaired surrogates (a '?' each, as the JDK encodes
     * them), at every position around the 8-byte words the ASCII check reads, and text longer than the scratch
     * space.
     */
    @Test
    void longTextOfEveryKindIsStoredAsTheJdkEncodesItInUtf8() {
        java.util.List<String> values = new java.util.ArrayList<>();
        values.add("");
        String[] odds = {"\u00e9", "\u0080", "\u00ff", "\u0141", "\u0100", "\u4e41", "\uD83D\uDE00", "\uD83D",
            "\uDE00", "\uDE00\uD83D"};
        for (int n = ArrowColumnSink.CACHED_MIN_CHARS; n < ArrowColumnSink.CACHED_MIN_CHARS + 20; n++) {
            StringBuilder ascii = new StringBuilder();
            for (int i = 0; i < n; i++) {
                ascii.append((char) (i % 5 == 0 ? 0x7F : ' ' + (i * 7 + n) % 95));
            }
            values.add(ascii.toString());
            for (String odd : odds) {
                for (int at : new int[] {0, 7, 8, n / 2, n - 9, n - 8, n - 1}) {
                    values.add(ascii.substring(0, at) + odd + ascii.substring(at + 1));
                }
            }
        }
        values.add("x".repeat(dev.sluice.internal.model.AsciiText.MAX_CHARS + 1));
        values.add("\u00e9".repeat(dev.sluice.internal.model.AsciiText.MAX_CHARS + 1));
        java.util.List<byte[]> stored = storedOneByOne(values);
        for (int r = 0; r < values.size(); r++) {
            assertArrayEquals(values.get(r).getBytes(StandardCharsets.UTF_8), stored.get(r), "row " + r);
        }
    }

    /**
     * Short text of every length from 0 to 40 is stored as {@code String.getBytes(UTF_8)} gives it, with a
     * character anywhere that is not ASCII: Latin-1 above ASCII (U+0080, é, U+00FF), characters whose low byte is
     * ASCII or zero (U+0141, U+0100, U+4E41), and a four-byte code point; each value over a row first written with
     * other text (a refused row written again), then the same instance in the next row, then an equal new instance.
     */
    @Test
    void shortTextOfEveryKindIsStoredAsTheJdkEncodesItWhenRepeatedAndOverARowWrittenAgain() {
        String[] odds = {"\u0080", "\u00e9", "\u00ff", "\u0141", "\u0100", "\u4e41", "\uD83D\uDE00"};
        java.util.List<String> values = new java.util.ArrayList<>();
        for (int n = 0; n <= 40; n++) {
            StringBuilder ascii = new StringBuilder();
            for (int i = 0; i < n; i++) {
                ascii.append((char) (i % 4 == 1 ? 0x7F : ' ' + (i * 11 + n) % 95));
            }
            values.add(ascii.toString());
            for (String odd : odds) {
                for (int at : new int[] {0, n / 2, n - odd.length()}) {
                    if (at >= 0 && at + odd.length() <= n) {
                        values.add(ascii.substring(0, at) + odd + ascii.substring(at + odd.length()));
                    }
                }
            }
        }
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector v = new VarCharVector("t", allocator)) {
            v.allocateNew(64, 4); // small: the rows below grow it
            ArrowColumnSink sink = new ArrowColumnSink(v);
            java.util.List<String> want = new java.util.ArrayList<>();
            int r = 0;
            for (int i = 0; i < values.size(); i++) {
                String value = values.get(i);
                sink.setText(r, values.get((i * 7 + 3) % values.size())); // the row refused, written again below
                sink.setText(r, value);
                sink.setText(r + 1, value);
                sink.setText(r + 2, new String(value));
                want.add(value);
                want.add(value);
                want.add(value);
                r += 3;
            }
            sink.finish(r);
            v.setValueCount(r);
            for (int i = 0; i < r; i++) {
                assertArrayEquals(want.get(i).getBytes(StandardCharsets.UTF_8), v.get(i), "row " + i);
            }
        }
    }

    @Test
    void shortAsciiTextIsStoredWithoutAnArrayPerValue() {
        String[] tags = new String[64];
        for (int i = 0; i < tags.length; i++) {
            tags[i] = "host-" + i + "-eu-west-1";
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector v = new VarCharVector("t", allocator)) {
            v.allocateNew(1 << 20, 20_000);
            ArrowColumnSink sink = new ArrowColumnSink(v);
            for (int r = 0; r < 20_000; r++) { // warm up: the vector at its size, the code compiled
                sink.setText(r, tags[r & 63]);
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int r = 0; r < 20_000; r++) {
                sink.setText(r, tags[r & 63]);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            // An array per value would be 20,000 arrays of 32 bytes or more.
            assertTrue(allocated < 64 * 1024, allocated + " bytes allocated for 20,000 short values");
            sink.finish(20_000);
            v.setValueCount(20_000);
            assertEquals(tags[19_999 & 63], new String(v.get(19_999), StandardCharsets.UTF_8));
        }
    }

    @Test
    void freshLongAsciiTextIsStoredWithoutAnArrayPerValue() {
        String[] messages = new String[2_000];
        for (int i = 0; i < messages.length; i++) {
            StringBuilder b = new StringBuilder(2_000);
            for (int c = 0; b.length() < 2_000; c++) {
                b.append((char) (' ' + (c * 31 + i) % 95));
            }
            messages[i] = b.toString(); // one instance per value, as log lines are
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector v = new VarCharVector("t", allocator)) {
            v.allocateNew(8L << 20, messages.length);
            ArrowColumnSink sink = new ArrowColumnSink(v);
            long allocated = 0;
            for (int round = 0; round < 3; round++) { // the last round is measured: the code warm
                v.reset();
                sink.unbind();
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int r = 0; r < messages.length; r++) {
                    sink.setText(r, messages[r]);
                }
                allocated = threads.getCurrentThreadAllocatedBytes() - before;
            }
            // An array per value would be 2,000 arrays of 2,016 bytes.
            assertTrue(allocated < 256 * 1024, allocated + " bytes allocated for 2,000 values of 2,000 characters");
            sink.finish(messages.length);
            v.setValueCount(messages.length);
            for (int r = 0; r < messages.length; r++) {
                assertEquals(messages[r], new String(v.get(r), StandardCharsets.UTF_8), "row " + r);
            }
        }
    }

    /**
     * A short value stored again is copied from an earlier row of the batch; whatever else is written where that
     * row's bytes lie (the row written again with bytes, long text, text that is not ASCII, or a null, after a
     * refused row) and a refilled or reallocated buffer never make a later row read back other bytes.
     */
    @Test
    void aRepeatedShortValueReadsBackAsItselfWhateverWasWrittenOverTheRowItWasCopiedFrom() {
        String tag = "host-0042";
        String other = "dc-7";
        String longText = "L".repeat(CACHED_MIN_CHARS_FOR_TEST + 3);
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector v = new VarCharVector("t", allocator)) {
            v.allocateNew(64, 4); // small: the rows below grow it
            ArrowColumnSink sink = new ArrowColumnSink(v);
            java.util.List<String> want = new java.util.ArrayList<>();
            int r = 0;
            for (int k = 0; k < 6; k++) {
                sink.setText(r, tag); // kept
                switch (k) {
                    case 0: sink.setUtf8(r, "XYZXYZXYZXYZ".getBytes(StandardCharsets.UTF_8), 0, 12); want.add("XYZXYZXYZXYZ"); break;
                    case 1: sink.setText(r, longText); want.add(longText); break;
                    case 2: sink.setText(r, "h\u00e9st-?"); want.add("h\u00e9st-?"); break;
                    case 3: sink.setNull(r); want.add(null); break;
                    case 4: sink.setBytes(r, "?".repeat(16).getBytes(StandardCharsets.UTF_8)); want.add("?".repeat(16)); break;
                    default: sink.setText(r, other); want.add(other);
                }
                r++;
                sink.setText(r, tag); // the same instance again
                want.add(tag);
                r++;
                sink.setText(r, tag);
                want.add(tag);
                r++;
            }
            sink.finish(r);
            v.setValueCount(r);
            for (int i = 0; i < r; i++) {
                if (want.get(i) == null) {
                    assertTrue(v.isNull(i), "row " + i);
                } else {
                    assertEquals(want.get(i), new String(v.get(i), StandardCharsets.UTF_8), "row " + i);
                }
            }

            // fresh buffers whose bytes are not the earlier rows': the kept value is not copied from them
            v.clear();
            v.allocateNew(1 << 10, 16);
            v.getDataBuffer().setOne(0, v.getDataBuffer().capacity());
            sink.unbind();
            sink.setText(0, tag);
            sink.setText(1, tag);
            sink.finish(2);
            v.setValueCount(2);
            assertEquals(tag, new String(v.get(0), StandardCharsets.UTF_8));
            assertEquals(tag, new String(v.get(1), StandardCharsets.UTF_8));
        }
    }

    private static final int CACHED_MIN_CHARS_FOR_TEST = ArrowColumnSink.CACHED_MIN_CHARS;
}
