package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BufferCacheTest {

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        BufferCache d = BufferCache.newBuilder().build();
        assertTrue(d.transportBytes() > 0 && d.transportBytes() <= 1L << 30, "transport " + d.transportBytes());
        assertEquals(4L << 30, d.bulkBytes());
        assertEquals(Duration.ofSeconds(30), d.idle());
        assertEquals(d, GreptimeOptions.newBuilder("localhost:4001", "public").build().bufferCache());
    }

    @Test
    void noneKeepsNothing() {
        assertEquals(0, BufferCache.none().transportBytes());
        assertEquals(0, BufferCache.none().bulkBytes());
    }

    @Test
    void badSizesAndIdleTimesAreRefusedNamingTheValue() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BufferCache.newBuilder().transportBytes(-1).bulkBytes(0).idle(Duration.ofSeconds(1)).build())
                .getMessage().contains("transport -1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BufferCache.newBuilder().idle(Duration.ZERO).build())
                .getMessage().contains("PT0S"));
        assertThrows(NullPointerException.class, () -> GreptimeOptions.newBuilder("localhost:4001",
                "public").bufferCache(null));
    }
}
