package dev.sluice.bench.cost;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How fast one bulk writer compresses: writes MiB of 4 KiB values, either highly repetitive text or random bytes, in
 * batches of 1 MiB to an in-process testkit with the chosen compression, and prints the payload's MB/s by the wall
 * clock and by the CPU time of the writing thread (the thread that encodes and compresses each batch). The first
 * batch warms up and is not counted.
 *
 * <pre>java --add-opens=java.base/java.nio=ALL-UNNAMED -cp ingester-bench/target/ingester-bench.jar \
 *   dev.sluice.bench.cost.BulkCompressionThroughput lz4 text 64</pre>
 */
public final class BulkCompressionThroughput {
    private static final int VALUE_BYTES = 4096;
    private static final int ROWS_PER_BATCH = 256;

    private BulkCompressionThroughput() {
    }

    /**
     * Runs one measurement.
     *
     * @param args compression ({@code none}, {@code lz4}, {@code zstd}), payload ({@code text} or {@code random}),
     *     MiB to write after the warm-up batch
     */
    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: BulkCompressionThroughput none|lz4|zstd text|random MiB");
            System.exit(2);
        }
        Compression compression = switch (args[0].toLowerCase(Locale.ROOT)) {
            case "none" -> Compression.None;
            case "lz4" -> Compression.Lz4;
            case "zstd" -> Compression.Zstd;
            default -> throw new IllegalArgumentException("compression must be none, lz4 or zstd, not " + args[0]);
        };
        boolean text = switch (args[1]) {
            case "text" -> true;
            case "random" -> false;
            default -> throw new IllegalArgumentException("payload must be text or random, not " + args[1]);
        };
        int batches = Integer.parseInt(args[2]) * (1 << 20) / (VALUE_BYTES * ROWS_PER_BATCH);
        TableSchema schema = TableSchema.newBuilder("compression_throughput")
                .addField("payload", text ? DataType.String : DataType.Binary)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        SplittableRandom random = new SplittableRandom(1);
        Object[] values = new Object[ROWS_PER_BATCH];
        for (int i = 0; i < values.length; i++) {
            if (text) {
                values[i] = "abcd".repeat(VALUE_BYTES / 4 - 2) + String.format("%08d", i);
            } else {
                byte[] b = new byte[VALUE_BYTES];
                random.nextBytes(b);
                values[i] = b;
            }
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (GreptimeTestServer server = GreptimeTestServer.start();
             GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
             BulkStreamWriter w = db.bulkStreamWriter(schema,
                     BulkWrite.Config.newBuilder().requestTimeout(Duration.ofMinutes(30)).build(),
                     Context.newBuilder().compression(compression).build())) {
            TableBufferRoot batch = w.tableBufferRoot(ROWS_PER_BATCH);
            long ts = 0;
            long wall = 0;
            long cpu = 0;
            for (int b = 0; b <= batches; b++) {
                for (Object v : values) {
                    batch.addRow(v, ts++);
                }
                long wall0 = System.nanoTime();
                long cpu0 = threads.getCurrentThreadCpuTime();
                w.writeNext().join();
                if (b > 0) {
                    wall += System.nanoTime() - wall0;
                    cpu += threads.getCurrentThreadCpuTime() - cpu0;
                }
            }
            double mb = (double) batches * ROWS_PER_BATCH * VALUE_BYTES / 1e6;
            System.out.printf(Locale.ROOT, "%s %s: %.1f MB in %d batches, %.1f MB/s wall, %.1f MB/s writer CPU%n",
                    args[0], args[1], mb, batches, mb / (wall / 1e9), mb / (cpu / 1e9));
        }
    }
}
