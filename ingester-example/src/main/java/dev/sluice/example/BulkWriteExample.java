package dev.sluice.example;

import java.time.Duration;

import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.data.DataType;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.TableSchema;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Streams Zstd-compressed Arrow batches over Flight DoPut. The writer creates the table first (the open-source
 * server does not create tables on this path). Needs {@code --add-opens=java.base/java.nio=ALL-UNNAMED}.
 */
public final class BulkWriteExample {
    private BulkWriteExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--endpoint host:port]}
     * @return the rows the server acknowledged
     */
    public static long run(String[] args) {
        try (ExampleTarget target = ExampleTarget.from(args)) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(target.endpoints(), "public").build());
            TableSchema schema = TableSchema.newBuilder("example_logs")
                    .addTag("host", DataType.String).addField("level", DataType.String)
                    .addField("message", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
            BulkWrite.Config config = BulkWrite.Config.newBuilder()
                    .allocatorMaxAllocation(256L << 20).maxInFlightRequests(8).requestTimeout(Duration.ofMillis(60_000)).build();
            try (BulkStreamWriter bulk = db.bulkStreamWriter(schema, config,
                    Context.newBuilder().compression(Compression.Zstd).build())) {
                TableBufferRoot batch = bulk.tableBufferRoot(10_000);
                List<CompletableFuture<Integer>> acks = new ArrayList<>();
                for (int b = 0; b < 5; b++) {
                    for (int i = 0; i < 10_000; i++) {
                        long row = b * 10_000L + i;
                        batch.addRow("node-" + row % 8, row % 10 == 0 ? "WARN" : "INFO",
                                "request " + row + " served", 1_700_000_000_000L + row);
                    }
                    acks.add(bulk.writeNext()); // the batch is empty again and refilled next round
                }
                long rows = bulk.completed(); // waits for every answer
                System.out.println("bulk: " + rows + " rows acknowledged in " + acks.size() + " batches");
                return rows;
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    /**
     * Entry point.
     *
     * @param args {@code [--endpoint host:port]}
     */
    public static void main(String[] args) {
        run(args);
    }
}
