package dev.sluice.bulk.delivery;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Six threads each open a bulk writer on the same table that does not exist yet (each writer creating it) and write
 * their own rows: every writer succeeds and every row is stored once.
 */
class TwoWritersOfOneNewTableAtOnceStoreEveryRowTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("shared_new").addTag("writer", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void everyRowIsStored() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                List<Future<Long>> writers = new ArrayList<>();
                for (int p = 0; p < 6; p++) {
                    String name = "w" + p;
                    writers.add(pool.submit(() -> {
                        try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder().build(),
                                Context.newBuilder().build())) {
                            TableBufferRoot batch = w.tableBufferRoot(100);
                            for (int b = 0; b < 5; b++) {
                                for (int i = 0; i < 100; i++) {
                                    batch.addRow(name, (long) i, (long) (b * 100 + i));
                                }
                                w.writeNext();
                            }
                            return w.completed();
                        }
                    }));
                }
                for (Future<Long> f : writers) {
                    assertEquals(500, f.get(5, TimeUnit.MINUTES));
                }
                assertEquals(3_000, server.rowCount("shared_new"));
                Await.until("the bulk memory is released", Duration.ofSeconds(60),
                        () -> db.stats().bulkAllocatedBytes() == 0);
            } finally {
                pool.shutdownNow();
                db.shutdownNow();
            }
        }
    }
}
