package dev.sluice.modules;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import java.time.Duration;

/**
 * Run in a child JVM by {@link BulkWriterWithoutTheBulkArtifactTest} with only what a user of
 * {@code ingester-protocol} gets: asks {@code db.bulkStreamWriter} directly, both overloads, and prints what it said.
 */
public final class BulkWriterWithoutTheBulkArtifactProbe {
    private BulkWriterWithoutTheBulkArtifactProbe() {
    }

    /**
     * Entry point.
     *
     * @param args the testkit endpoint
     */
    public static void main(String[] args) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(args[0], "public").build());
        TableSchema s = TableSchema.newBuilder("no_bulk").addTag("k", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (BulkStreamWriter w = db.bulkStreamWriter(s)) {
            System.out.println("bulk opened?! " + w);
        } catch (RuntimeException e) {
            System.out.println("bulk refused: " + e.getClass().getName() + ": " + e.getMessage());
        }
        try (BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().createTable(false).build(),
                Context.newBuilder().build())) {
            System.out.println("bulk opened?! " + w);
        } catch (RuntimeException e) {
            System.out.println("bulk refused: " + e.getClass().getName() + ": " + e.getMessage());
        }
        System.out.println("shutdown " + db.shutdownGracefully(Duration.ofSeconds(10)));
    }
}
