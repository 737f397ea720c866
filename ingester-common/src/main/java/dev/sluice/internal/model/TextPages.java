package dev.sluice.internal.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Large byte arrays that a column packs long text values into, one after another, so that a table of log lines
 * holds a few large arrays instead of one object per value.
 *
 * <p>Why: a table lives from its first row until its request is answered, long enough for its values to outlive
 * several young collections. Kept as one array (or the caller's {@code String}) per value, every byte was copied by
 * the collector from eden to a survivor space and on to the old generation: on the logs workload, with each row's
 * 2 KB message a fresh string, G1's copying was a fifth of the client process's CPU. Pages past the first few are
 * sized to be <em>humongous</em> under G1 (at least half a heap region), which G1 allocates straight in the old
 * generation, never copies, and frees at the next young collection once nothing refers to them.
 *
 * <p>The pages are kept for the column's next fill ({@link #restart()}): a reused table allocates nothing for its
 * long text. The first page is just over the first value's size (a table of one row pays what an array per value
 * would), and each next one doubles, up to {@link #LARGE_PAGE}. A value of a large page or more gets an array of
 * its own, never reused. Not thread-safe: one column, one writer.
 */
final class TextPages {
    /**
     * The largest page: one G1 region less an array header, the region size estimated the way G1 sizes regions
     * by default (the heap's maximum over 2,048, a power of two from 1 to 32 MiB). An estimate off by a factor
     * only costs room (a page over two regions) or the copying this class avoids (a page under half a region).
     */
    static final int LARGE_PAGE = regionBytes(Runtime.getRuntime().maxMemory()) - 16;
    /** The smallest first page; otherwise the first page holds just the first value (a table of one row). */
    private static final int MIN_PAGE = 256;

    private final List<byte[]> pages = new ArrayList<>();
    /** Index in {@link #pages} of the page being filled; -1 before the first. */
    private int current = -1;
    private int used;
    private byte[] last;
    private int lastOffset;
    /** Where the filling stood before the last {@link #reserve}, for {@link #undoLast()}. */
    private int markCurrent = -1;
    private int markUsed;

    static int regionBytes(long maxHeap) {
        long r = Long.highestOneBit(Math.max(1L << 20, maxHeap / 2048));
        return (int) Math.min(32L << 20, r);
    }

    /**
     * Makes room for {@code length} bytes; {@link #array()} and {@link #offset()} then say where to copy them.
     *
     * @param length the value's length in bytes
     */
    void reserve(int length) {
        markCurrent = current;
        markUsed = used;
        if (current >= 0 && used + length <= pages.get(current).length) {
            last = pages.get(current);
            lastOffset = used;
            used += length;
            return;
        }
        if (length >= LARGE_PAGE) {
            last = new byte[length]; // the value's own array, never reused
            lastOffset = 0;
            return;
        }
        while (++current < pages.size()) {
            if (pages.get(current).length >= length) {
                break;
            }
        }
        if (current == pages.size()) {
            int size = pages.isEmpty() ? Math.max(length + 1, MIN_PAGE)
                    : (int) Math.min(LARGE_PAGE, 2L * pages.get(current - 1).length);
            while (size <= length) { // a page is always larger than any value in it: see ArrayColumn.getBytes
                size = (int) Math.min(LARGE_PAGE, 2L * size);
            }
            pages.add(new byte[size]);
        }
        last = pages.get(current);
        lastOffset = 0;
        used = length;
    }

    /**
     * Returns the array the last {@link #reserve} made room in.
     *
     * @return the array
     */
    byte[] array() {
        return last;
    }

    /**
     * Returns where in {@link #array()} the last reserved room starts.
     *
     * @return the offset
     */
    int offset() {
        return lastOffset;
    }

    /**
     * Gives back the room the last {@link #reserve} took, when its value is replaced before any other is reserved
     * (a row that failed or was cancelled, written again at the same index).
     */
    void undoLast() {
        current = markCurrent;
        used = markUsed;
    }

    /** Starts filling from the first page again (the column's rows are being written again from row 0). */
    void restart() {
        current = pages.isEmpty() ? -1 : 0;
        used = 0;
        markCurrent = current;
        markUsed = 0;
    }

    /**
     * Returns the number of pages (for tests).
     *
     * @return pages held
     */
    int pageCount() {
        return pages.size();
    }
}
