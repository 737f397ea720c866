package dev.sluice.bulk.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/**
 * Text of every length around the sink's cache threshold (short values encoded afresh, long ones through the
 * column's cache) is stored as given, over several fills of the same vector with repeated and new instances.
 */
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
                sink.refill();
                int rows = 500;
                for (int r = 0; r < rows; r++) {
                    // pooled instances repeat; every third row is a new, equal instance
                    String s = r % 3 == 0 ? new String(pool[r % pool.length]) : pool[r % pool.length];
                    sink.setText(r, s);
                }
                v.setValueCount(rows);
                for (int r = 0; r < rows; r++) {
                    assertEquals(pool[r % pool.length], new String(v.get(r), StandardCharsets.UTF_8),
                            "fill " + fill + ", row " + r);
                }
            }
        }
    }
}
