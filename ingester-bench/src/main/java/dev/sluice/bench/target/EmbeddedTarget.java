package dev.sluice.bench.target;

import dev.sluice.testkit.GreptimeTestServer;

/** The testkit in this process, counting rows without keeping them. */
public final class EmbeddedTarget implements Target {
    private final GreptimeTestServer server = GreptimeTestServer.builder().retainRows(false).requestLogCapacity(16).start();

    @Override
    public String endpoint() {
        return server.endpoint();
    }

    @Override
    public String description() {
        return "embedded testkit at " + server.endpoint() + " — measures the client, not GreptimeDB";
    }

    @Override
    public void reset(String table) {
        server.clear();
    }

    @Override
    public long count(String table) {
        return server.rowCount(table);
    }

    @Override
    public boolean ownsThread(String threadName) {
        return threadName.startsWith("testkit-");
    }

    @Override
    public void close() {
        server.close();
    }
}
