package dev.sluice.internal.bulk.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReuseCacheTest {
    @Test
    void buffersWithEqualContentsAreStillTrackedOneByOne() {
        List<ByteBuffer> freed = new ArrayList<>();
        ReuseCache<ByteBuffer> cache = new ReuseCache<>(3 * 1024, Long.MAX_VALUE, () -> 0L, null, freed::add);
        ByteBuffer a = ByteBuffer.allocate(1024);
        ByteBuffer b = ByteBuffer.allocate(1024);
        ByteBuffer c = ByteBuffer.allocate(1024);
        cache.keep(a, 1024);
        cache.keep(b, 1024);
        assertSame(b, cache.take(1024), "the most recently kept comes back first");
        cache.keep(c, 1024);
        cache.keep(ByteBuffer.allocate(1024), 1024);
        assertEquals(3 * 1024, cache.cachedBytes());
        cache.keep(b, 1024);
        assertEquals(List.of(a), freed, "the longest-kept buffer, a, made room; never one still in use");
        cache.trim();
        assertEquals(4, freed.size());
        assertEquals(0, cache.cachedBytes());
        assertNull(cache.take(1024));
    }
}
