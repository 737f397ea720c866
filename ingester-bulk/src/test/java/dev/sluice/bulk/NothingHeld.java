package dev.sluice.bulk;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import java.time.Duration;

/** Waits until a client holds nothing for its writes: its byte budget is given back and its bulk memory released. */
public final class NothingHeld {
    private NothingHeld() {
    }

    /**
     * Waits until the client's in-flight bytes are back to 0 and, when {@code bulkMemoryToo}, its bulk memory too.
     *
     * @param db the client
     * @param bound the longest wait
     * @param bulkMemoryToo whether the bulk writers' off-heap memory must be released as well
     */
    public static void await(GreptimeDB db, Duration bound, boolean bulkMemoryToo) {
        Await.until("the client's byte budget is given back", bound, () -> db.stats().bytesInFlight() == 0);
        if (bulkMemoryToo) {
            Await.until("the bulk memory is released", bound, () -> db.stats().bulkAllocatedBytes() == 0);
        }
    }
}
