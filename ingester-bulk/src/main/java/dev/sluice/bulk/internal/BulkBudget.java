package dev.sluice.bulk.internal;

/** The client-wide memory budget as a bulk writer sees it: room taken per batch until the batch is answered. */
@FunctionalInterface
public interface BulkBudget {
    /** No budget: every request succeeds at once. */
    BulkBudget UNLIMITED = bytes -> () -> { };

    /**
     * Takes room for a batch, waiting as the client's limit policy says (bounded).
     *
     * @param bytes the batch's encoded size
     * @return gives the room back; safe to call more than once
     * @throws RuntimeException naming the limit when no room came in time
     */
    Runnable acquire(long bytes);
}
