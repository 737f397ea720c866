package dev.sluice.example;

import dev.sluice.data.DataType;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;

/**
 * Writes round-robin to several frontends; when one goes away (the embedded run stops one half-way), writes
 * carry on against the others. Give real frontends as {@code --endpoint a:4001,b:4001}.
 */
public final class MultiEndpointExample {
    private MultiEndpointExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--endpoint host:port,host:port]}
     * @return rows stored over the embedded servers (-1 against real ones)
     */
    public static long run(String[] args) {
        try (ExampleTarget target = ExampleTarget.from(args, 2, GreptimeTestServer.builder())) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(target.endpoints(), "public")
                    .healthCheckInterval(Duration.ofSeconds(1)).build());
            try {
                TableSchema schema = TableSchema.newBuilder("example_fleet").addTag("node", DataType.String)
                        .addField("up", DataType.Bool).addTimestamp("ts", DataType.TimestampSecond).build();
                int failed = 0;
                for (int i = 0; i < 20; i++) {
                    if (i == 10 && !target.embedded().isEmpty()) {
                        target.embedded().get(0).stop();
                        System.out.println("stopped " + target.endpoints().get(0));
                    }
                    if (!db.write(Table.from(schema).addRow("n" + i, true, (long) i)).join().isOk()) {
                        failed++;
                    }
                }
                System.out.println("20 writes, " + failed + " failed; endpoints available now: "
                        + db.stats().availableEndpoints() + ", retries: " + db.stats().retries());
                return target.rowCount("example_fleet");
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    /**
     * Entry point.
     *
     * @param args {@code [--endpoint host:port,host:port]}
     */
    public static void main(String[] args) {
        run(args);
    }
}
