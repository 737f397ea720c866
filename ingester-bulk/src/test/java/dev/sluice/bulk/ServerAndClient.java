package dev.sluice.bulk;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.testkit.GreptimeTestServer;

/**
 * A test server and a client of it with the default options, started together and stopped together.
 *
 * @param server the server
 * @param db the client
 */
record ServerAndClient(GreptimeTestServer server, GreptimeDB db) implements AutoCloseable {
    /**
     * Starts a server and a client of it.
     *
     * @return both
     */
    static ServerAndClient start() {
        GreptimeTestServer server = GreptimeTestServer.start();
        return new ServerAndClient(server, GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .build()));
    }

    /** Shuts the client down at once, then stops the server. */
    @Override
    public void close() {
        try {
            db.shutdownNow();
        } finally {
            server.close();
        }
    }
}
