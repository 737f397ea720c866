package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Small batches of different sizes (packed into buffers a writer reuses once the transport and the writer let go of
 * them), some refused by the server with a retryable error and resent, some unanswered for a while: every batch,
 * sent again or not, is stored with its own rows, cell for cell (a batch resent with another batch's bytes would
 * leave some ids missing or holding another row's values), and the client holds no memory afterwards.
 */
class SmallBatchesResentAfterRefusalsAndBrokenStreamsAreStoredWithTheirOwnRowsTest {
    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table)
                .addTag("host", DataType.String)
                .addField("id", DataType.Int64)
                .addField("msg", DataType.String)
                .addField("batch", DataType.Int32)
                .addTimestamp("ts", DataType.TimestampMillisecond)
                .build();
    }

    static String msg(long id, int batch) {
        return switch ((int) (id % 4)) {
            case 0 -> "b" + batch;
            case 1 -> "batch-" + batch + "-row-" + id + "-".repeat(batch % 40);
            case 2 -> "é" + batch;
            default -> "repeated";
        };
    }

    @ParameterizedTest
    @CsvSource({"8, 0, None", "8, 15, None", "31, 5, Zstd", "2, 0, Lz4", "8, 15, Lz4", "8, 5, Gzip"})
    void everyBatchIsStoredWithItsOwnRows(int inFlight, long ackDelayMillis, Compression compression)
            throws Exception {
        String table = "resent_" + inFlight + "_" + ackDelayMillis + "_" + compression.name().toLowerCase();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(60)).build()).build());
            Map<Long, Object[]> written = new HashMap<>();
            try {
                assertTrue(db.createTable(schema(table), Context.newBuilder().build()).join().isOk());
                server.faults().bulkAckDelay(Duration.ofMillis(ackDelayMillis));
                server.faults().failEvery(5, StatusCode.RateLimited, "slow down");
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                List<Integer> sizes = new ArrayList<>();
                try (BulkStreamWriter w = db.bulkStreamWriter(schema(table),
                        BulkWrite.Config.newBuilder().maxInFlightRequests(inFlight).createTable(false).build(),
                        Context.newBuilder().compression(compression).build())) {
                    TableBufferRoot batch = w.tableBufferRoot(4);
                    long id = 0;
                    for (int b = 0; b < 80; b++) {
                        int rows = switch (b % 6) {
                            case 0 -> 1;
                            case 1 -> 50;
                            case 2 -> 3;
                            case 3 -> 120;
                            case 4 -> 2;
                            default -> 17;
                        };
                        for (int r = 0; r < rows; r++, id++) {
                            Object[] row = {"h" + (id % 3), id, msg(id, b), b, 1_700_000_000_000L + id};
                            batch.addRow(row);
                            written.put(id, row);
                        }
                        sizes.add(rows);
                        futures.add(w.writeNext());
                    }
                    for (int i = 0; i < futures.size(); i++) {
                        assertEquals(sizes.get(i), futures.get(i).get(5, TimeUnit.MINUTES), "batch " + i);
                    }
                    assertTrue(w.replays() > 0, "some batches were resent");
                }
                server.faults().failEvery(0, StatusCode.RateLimited, "");
                NothingHeld.await(db, Duration.ofSeconds(60), true);
                List<List<Object>> stored = server.columns(table, "host", "id", "msg", "batch", "ts");
                Map<Long, Integer> seen = new HashMap<>();
                for (int i = 0; i < stored.get(0).size(); i++) {
                    long id = (Long) stored.get(1).get(i);
                    Object[] expected = written.get(id);
                    assertEquals(expected[0], stored.get(0).get(i), "host of id " + id);
                    assertEquals(expected[2], stored.get(2).get(i), "msg of id " + id);
                    assertEquals(((Integer) expected[3]).longValue(), stored.get(3).get(i), "batch of id " + id);
                    assertEquals(expected[4], stored.get(4).get(i), "ts of id " + id);
                    seen.merge(id, 1, Integer::sum);
                }
                assertEquals(written.keySet(), seen.keySet(), "every id is stored");
            } finally {
                db.shutdownNow();
            }
        }
    }
}
