package dev.sluice.bulk;

/** {@link ServerAndClient} for the tests of other packages. */
public final class ServerAndClientAccess {
    private ServerAndClientAccess() {
    }

    /**
     * Starts a server and a client of it with the default options.
     *
     * @return both; closing it shuts the client down, then stops the server
     */
    public static Started start() {
        return new Started(ServerAndClient.start());
    }

    /** A started server and client. */
    public static final class Started implements AutoCloseable {
        private final ServerAndClient both;

        Started(ServerAndClient both) {
            this.both = both;
        }

        /** @return the server */
        public dev.sluice.testkit.GreptimeTestServer server() {
            return both.server();
        }

        /** @return the client */
        public dev.sluice.GreptimeDB db() {
            return both.db();
        }

        @Override
        public void close() {
            both.close();
        }
    }
}
