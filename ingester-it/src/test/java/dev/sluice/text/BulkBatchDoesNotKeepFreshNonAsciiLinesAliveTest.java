package dev.sluice.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * "Bulk does not keep text (each row is copied into Arrow memory as it is added)" must hold for a long line with a
 * non-ASCII character too: were it kept by the column's cache of encoded text (the caller's String and an encoded
 * array as its key until the cache overflows, batch after batch), fresh log lines would never hit it, only be kept
 * alive and copied by the collector.
 */
class BulkBatchDoesNotKeepFreshNonAsciiLinesAliveTest {
    @Test
    void freshNonAsciiLogLinesAreNotKeptAliveByABulkWriterAfterTheirBatchIsAnswered() throws Exception {
        TableSchema schema = TableSchema.newBuilder("bulk_fresh_lines").addTag("h", DataType.String)
                .addField("m", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .build());
            BulkWrite.Config bulk = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(60)).build();
            List<WeakReference<String>> refs = new ArrayList<>();
            try (BulkStreamWriter w = db.bulkStreamWriter(schema, bulk, Context.newBuilder().build())) {
                TableBufferRoot root = w.tableBufferRoot(1_024);
                char[] c = new char[2_000];
                for (int r = 0; r < 400; r++) {
                    Arrays.fill(c, (char) ('a' + r % 26));
                    c[r % 2_000] = 'é'; // one accented letter in a 2,000-character log line
                    String line = new String(c);
                    refs.add(new WeakReference<>(line));
                    root.addRow("h", line, 1_000L + r);
                }
                Await.happensWithin(Duration.ofSeconds(2), () -> {
                    System.gc();
                    return refs.stream().allMatch(x -> x.get() == null);
                });
                long held = refs.stream().filter(x -> x.get() != null).count();
                assertEquals(400, w.writeNext().get(60, TimeUnit.SECONDS));
                assertEquals(0, held, held + " of 400 fresh log lines kept alive by the batch while it was being filled");
                Await.happensWithin(Duration.ofSeconds(2), () -> {
                    System.gc();
                    return refs.stream().allMatch(x -> x.get() == null);
                });
                long alive = refs.stream().filter(x -> x.get() != null).count();
                assertEquals(0, alive, alive + " of 400 fresh log lines still reachable after their batch was answered");
            }
            db.shutdownGracefully(Duration.ofSeconds(10));
        }
    }
}
