package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8CacheTest {
    private static String[] pool(int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = "host_" + i + "_é";
        }
        return out;
    }

    /** One fill of a 1,000-row column from a pool of 1,000 distinct host names, as a reused table sees it. */
    private static byte[][] fill(Utf8Cache cache, String[] hosts) {
        byte[][] out = new byte[hosts.length][];
        cache.nextFill();
        for (int i = 0; i < hosts.length; i++) {
            out[i] = cache.encode(hosts[i]);
            assertArrayEquals(hosts[i].getBytes(StandardCharsets.UTF_8), out[i], hosts[i]);
        }
        return out;
    }

    @Test
    void aReusedColumnWithMoreDistinctValuesThanItsFirstCacheHoldsConvergesOnEncodingEachValueOnce() {
        String[] hosts = pool(1_000);
        Utf8Cache cache = new Utf8Cache(1_000);
        assertEquals(128, cache.slots() * 2, "starts at one slot per 8 rows: 64 slots");
        byte[][] previous = fill(cache, hosts);
        for (int round = 0; round < 4; round++) {
            previous = fill(cache, hosts);
        }
        byte[][] steady = fill(cache, hosts);
        for (int i = 0; i < hosts.length; i++) {
            assertSame(previous[i], steady[i], "host " + i + " was encoded again although the column is reused");
        }
        assertTrue(cache.slots() <= Utf8Cache.MAX_SLOTS);
    }

    @Test
    void aTableFilledOnceKeepsItsSmallCacheAndStillEncodesEveryValueRight() {
        // (Its owner calls nextFill() only when it is reset for another fill, never within one.)
        String[] hosts = pool(1_000);
        Utf8Cache cache = new Utf8Cache(1_000);
        fill(cache, hosts);
        assertEquals(64, cache.slots(), "grows only when a column is filled again, not while it is filled once");
    }

    @Test
    void valuesThatNeverRepeatStayCorrectAndTheCacheStopsGrowingAtItsBound() {
        Utf8Cache cache = new Utf8Cache(65_536);
        for (int round = 0; round < 6; round++) {
            cache.nextFill();
            for (int i = 0; i < 20_000; i++) {
                String v = Integer.toHexString(round * 1_000_000 + i);
                assertArrayEquals(v.getBytes(StandardCharsets.UTF_8), cache.encode(v));
            }
        }
        assertEquals(Utf8Cache.MAX_SLOTS, cache.slots());
    }

    @Test
    void longValuesAreBoundedByBytesNotOnlyByCount() {
        Utf8Cache cache = new Utf8Cache(1_000);
        String[] big = new String[4];
        for (int i = 0; i < big.length; i++) {
            big[i] = String.valueOf((char) ('a' + i)).repeat((int) (Utf8Cache.MAX_BYTES / 3));
        }
        byte[] first = cache.encode(big[0]);
        assertSame(first, cache.encode(big[0]), "repeats hit while under the byte bound");
        cache.encode(big[1]);
        cache.encode(big[2]);
        cache.encode(big[3]);
        assertNotSame(first, cache.encode(big[0]), "the fourth value went past 1 MiB and emptied the cache");
    }
}
