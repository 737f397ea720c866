package dev.sluice.internal.bulk.spi;

import dev.sluice.BufferCache;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The bulk codec, provided by the {@code dev.sluice.bulk} module ({@code ingester-bulk}) and found with
 * {@link java.util.ServiceLoader}: {@code provides} in its module descriptor, {@code META-INF/services} on the class
 * path. It only builds, encodes and decodes; the client's bulk writer sends, resends, budgets and answers the
 * batches. The client looks it up when its first bulk writer is opened, so a client without that module loads no
 * bulk or Arrow class; creating the service loads none either.
 */
public interface BulkCodec {
    /**
     * Makes sure the codec can run in this JVM, before anything is created or sent; the client calls it once,
     * before {@link #attach}, and again only after it failed.
     *
     * @throws IllegalStateException naming what is missing (Arrow's JVM flag)
     */
    void check();

    /**
     * Creates one client's bulk memory; called once per client, with its first bulk writer.
     *
     * @param cache how much released off-heap memory the client keeps for reuse, and for how long
     * @param timer the client's timer, which frees memory kept unused too long
     * @param handOff gives large buffers to the transport without a copy, where it takes them
     * @return the client's bulk memory
     */
    BulkMemory attach(BufferCache cache, ScheduledExecutorService timer, DirectHandOff handOff);
}
