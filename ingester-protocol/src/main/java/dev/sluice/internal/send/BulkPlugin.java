package dev.sluice.internal.send;

/**
 * The bulk writers' implementation, provided by the {@code dev.sluice.bulk} module ({@code ingester-bulk}) and found
 * with {@link java.util.ServiceLoader}: {@code provides} in its module descriptor, {@code META-INF/services} on
 * the class path. The client looks it up when its first bulk writer is opened, so a client without that module
 * loads no bulk or Arrow class.
 */
public interface BulkPlugin {
    /**
     * Makes sure the bulk writers can run in this JVM, before anything is created or sent.
     *
     * @throws IllegalStateException naming what is missing (Arrow's JVM flag)
     */
    void check();

    /**
     * Connects bulk writers to one client; called once per client, with its first bulk writer.
     *
     * @param host what the writers borrow from the client
     * @return the client's bulk writers and their memory
     */
    BulkWriters attach(BulkHost host);
}
