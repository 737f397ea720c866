package dev.sluice.unreachable;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A bulk batch sent to an endpoint where nothing listens is never reported stored: {@code completed()} throws every
 * time, whatever the health checks have found so far. Repeated with fresh clients, because the outcome depends on
 * how the first health check and the first DoPut race; each try starts its batch a little later.
 */
@SharesJvm
class BulkBatchToNothingListeningNeverCompletesQuietlyTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    /**
     * Twenty tries, four at a time (each try mostly waits out its 2 s delivery deadline); every try has its own
     * client and port and the same offset against that client's first health check as when run alone.
     */
    @Test
    void completedThrowsOnEveryTry() throws Exception {
        List<String> quiet = java.util.Collections.synchronizedList(new ArrayList<>());
        int tries = 20;
        int lanes = 4;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(lanes);
        try {
            List<java.util.concurrent.Future<?>> running = new ArrayList<>();
            for (int lane = 0; lane < lanes; lane++) {
                int first = lane;
                running.add(pool.submit(() -> {
                    for (int i = first; i < tries; i += lanes) {
                        oneTry(i, quiet);
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : running) {
                f.get(5, java.util.concurrent.TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), quiet, "of " + tries + " tries, these reported no failure with nothing listening");
    }

    private static void oneTry(int i, List<String> quiet) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder("127.0.0.1:" + port, "public")
                .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(2)).build()).build());
        try (BulkStreamWriter bulk = db.bulkStreamWriter(CPU, BulkWrite.Config.newBuilder().createTable(false)
                .build(), Context.newBuilder().build())) {
            Thread.sleep(i % 5 * 150L); // shifts the batch against the first health check, try by try
            TableBufferRoot batch = bulk.tableBufferRoot(10);
            batch.addRow("h1", 0.5, 1_700_000_000_000L);
            CompletableFuture<Integer> ack = bulk.writeNext();
            long stored = bulk.completed();
            quiet.add("try " + i + ": completed() returned " + stored + "; writeNext's future " + ack
                    + "; acked " + bulk.ackedBatches() + ", failed " + bulk.failedBatches());
        } catch (WriteException expected) {
            // the batch failed loudly
        } finally {
            db.shutdownNow();
        }
    }
}
