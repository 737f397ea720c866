package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.IdentityHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TextPagesTest {
    @Test
    void pagesStartSmallDoubleUpToTheLargePageAndAreReusedOnTheNextFill() {
        TextPages pages = new TextPages();
        Map<byte[], Integer> used = new IdentityHashMap<>();
        long total = 0;
        for (int i = 0; i < 20_000; i++) {
            pages.reserve(2_000);
            byte[] a = pages.array();
            int at = pages.offset();
            assertTrue(at >= 0 && at + 2_000 <= a.length, "room " + at + " in " + a.length);
            used.merge(a, 2_000, Integer::sum);
            total += 2_000;
        }
        int largest = used.keySet().stream().mapToInt(a -> a.length).max().orElse(0);
        assertEquals(TextPages.LARGE_PAGE, largest, "pages grow to the large page");
        int partly = 0;
        for (Map.Entry<byte[], Integer> e : used.entrySet()) {
            assertTrue(e.getValue() <= e.getKey().length, "no page overfilled");
            if (e.getKey().length - e.getValue() >= 2_000) {
                partly++; // room for another value: only the page being filled
            }
        }
        assertTrue(partly <= 1, partly + " pages left with room for another value");
        int count = pages.pageCount();
        pages.restart();
        for (int i = 0; i < 20_000; i++) {
            pages.reserve(2_000);
        }
        assertEquals(count, pages.pageCount(), "a second fill of the same size allocates no page");
        assertTrue(total > 0);
    }

    @Test
    void aValueLargerThanAPageGetsAnArrayOfItsOwnAndTheNextValueGoesOnInThePage() {
        TextPages pages = new TextPages();
        pages.reserve(100);
        byte[] first = pages.array();
        pages.reserve(TextPages.LARGE_PAGE + 1);
        byte[] own = pages.array();
        assertNotSame(first, own);
        assertEquals(TextPages.LARGE_PAGE + 1, own.length);
        assertEquals(0, pages.offset());
        pages.reserve(100);
        assertSame(first, pages.array());
        assertEquals(100, pages.offset());
    }

    @Test
    void theRegionEstimateFollowsG1sDefaultSizing() {
        assertEquals(1 << 20, TextPages.regionBytes(256L << 20));
        assertEquals(2 << 20, TextPages.regionBytes(4L << 30));
        assertEquals(16 << 20, TextPages.regionBytes(32L << 30));
        assertEquals(32 << 20, TextPages.regionBytes(1L << 40));
    }
}
