package dev.sluice.modules;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Run in a child JVM by {@link BatchingBulkPathWithoutTheBulkArtifactTest} with only what a user of
 * {@code ingester-protocol} gets: opens a batching writer on the bulk path, writes a row, and prints what it was told.
 */
public final class BatchingBulkPathWithoutTheBulkArtifactProbe {
    private BatchingBulkPathWithoutTheBulkArtifactProbe() {
    }

    /**
     * Entry point.
     *
     * @param args the testkit endpoint
     */
    public static void main(String[] args) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(args[0], "public").build());
        TableSchema s = TableSchema.newBuilder("no_bulk_batching").addTag("k", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        BatchingWriter w;
        try {
            w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk).build());
        } catch (RuntimeException e) {
            System.out.println("refused: " + e.getClass().getName() + ": " + e.getMessage());
            System.out.println("shutdown " + db.shutdownGracefully(Duration.ofSeconds(10)));
            return;
        }
        try {
            w.write(s, "a", 1L).get(30, TimeUnit.SECONDS);
            System.out.println("row stored?!");
        } catch (Exception e) {
            StringBuilder chain = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                chain.append(" <- ").append(t.getClass().getName()).append(": ").append(t.getMessage());
            }
            System.out.println("row failed:" + chain);
        }
        try {
            w.close();
        } catch (RuntimeException e) {
            System.out.println("close: " + e);
        }
        System.out.println("shutdown " + db.shutdownGracefully(Duration.ofSeconds(10)));
    }
}
