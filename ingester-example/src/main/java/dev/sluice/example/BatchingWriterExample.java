package dev.sluice.example;

import dev.sluice.BatchingWriter;
import dev.sluice.data.DataType;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.TableSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Many threads write single rows; the batching writer coalesces them into large requests. */
public final class BatchingWriterExample {
    private BatchingWriterExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--endpoint host:port]}
     * @return the rows acknowledged
     * @throws InterruptedException when interrupted
     */
    public static long run(String[] args) throws InterruptedException {
        try (ExampleTarget target = ExampleTarget.from(args)) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(target.endpoints(), "public").build());
            TableSchema events = TableSchema.newBuilder("example_events")
                    .addTag("thread", DataType.Int32).addField("value", DataType.Int64)
                    .addTimestamp("ts", DataType.TimestampMillisecond).build();
            BatchingWriter writer = db.batchingWriter(BatchingWriter.Config.newBuilder()
                    .maxBatchRows(5_000).flushInterval(Duration.ofMillis(100)).build());
            try {
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int id = t;
                    Thread th = new Thread(() -> {
                        for (int i = 0; i < 10_000; i++) {
                            writer.write(events, id, (long) i, 1_700_000_000_000L + i); // returns the batch's future
                        }
                    });
                    threads.add(th);
                    th.start();
                }
                for (Thread th : threads) {
                    th.join();
                }
                writer.flush(Duration.ofSeconds(30));
                System.out.println("batching: " + writer.ackedRows() + " rows acknowledged");
                return writer.ackedRows();
            } finally {
                writer.close();
                db.shutdownGracefully();
            }
        }
    }

    /**
     * Entry point.
     *
     * @param args {@code [--endpoint host:port]}
     * @throws InterruptedException when interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        run(args);
    }
}
