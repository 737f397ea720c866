package dev.sluice.internal.bulk;

/**
 * A client's off-heap memory for bulk writers, created with its first bulk writer. Free of Arrow types, so a
 * client that never bulk-writes loads no Arrow class.
 */
public interface BulkMemory {
    /**
     * Returns the off-heap bytes the client's bulk writers hold now.
     *
     * @return allocated bytes
     */
    long allocatedBytes();

    /** Frees the memory kept for reuse, and keeps none from now on (the client is shutting down). */
    void trim();
}
