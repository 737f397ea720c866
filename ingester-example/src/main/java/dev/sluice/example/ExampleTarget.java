package dev.sluice.example;

import dev.sluice.testkit.GreptimeTestServer;
import java.util.ArrayList;
import java.util.List;

/**
 * Where an example writes: the endpoints given with {@code --endpoint host:port[,host:port...]}, or embedded
 * testkits started for the run (as many as the example wants) and stopped by {@link #close()}.
 */
public final class ExampleTarget implements AutoCloseable {
    private final List<GreptimeTestServer> embedded = new ArrayList<>();
    private final String[] endpoints;

    private ExampleTarget(String[] endpoints) {
        this.endpoints = endpoints;
    }

    /**
     * Reads {@code --endpoint} or starts testkits.
     *
     * @param args the example's arguments
     * @param testkits how many embedded servers to start when no endpoint is given
     * @param builder settings of the embedded servers
     * @return the target
     */
    public static ExampleTarget from(String[] args, int testkits, GreptimeTestServer.Builder builder) {
        String value = option(args, "--endpoint");
        if (value != null) {
            return new ExampleTarget(value.split(","));
        }
        ExampleTarget t = new ExampleTarget(new String[testkits]);
        for (int i = 0; i < testkits; i++) {
            GreptimeTestServer s = builder.start();
            t.embedded.add(s);
            t.endpoints[i] = s.endpoint();
        }
        System.out.println("no --endpoint given: using embedded testkit(s) at " + String.join(", ", t.endpoints));
        return t;
    }

    /**
     * Reads {@code --endpoint} or starts one default testkit.
     *
     * @param args the example's arguments
     * @return the target
     */
    public static ExampleTarget from(String[] args) {
        return from(args, 1, GreptimeTestServer.builder());
    }

    /**
     * Finds an option's value.
     *
     * @param args arguments
     * @param name e.g. {@code --endpoint}
     * @return the value after the name, or null
     */
    public static String option(String[] args, String name) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return null;
    }

    /** @return the endpoints to connect to */
    public List<String> endpoints() {
        return List.of(endpoints);
    }

    /** @return the embedded servers (empty with {@code --endpoint}) */
    public List<GreptimeTestServer> embedded() {
        return embedded;
    }

    /**
     * Counts a table's rows on the embedded servers.
     *
     * @param table table name
     * @return rows over every embedded server, or -1 when writing to real endpoints
     */
    public long rowCount(String table) {
        if (embedded.isEmpty()) {
            return -1;
        }
        return embedded.stream().mapToLong(s -> s.rowCount(table)).sum();
    }

    @Override
    public void close() {
        embedded.forEach(GreptimeTestServer::close);
    }
}
