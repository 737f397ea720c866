package dev.sluice.retries;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With the client's default settings, a run of retryable errors from the server (rate limited, region busy) is
 * retried to success on every path, and every row is stored once.
 */
@SharesJvm
class RetryableFaultsOnEveryPathTest {
    private GreptimeTestServer server;
    private GreptimeDB db;

    @BeforeEach
    void start() {
        server = GreptimeTestServer.start();
        db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
    }

    @AfterEach
    void stop() {
        assertTrue(db.shutdownGracefully());
        server.close();
    }

    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("usage", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    private static Table rows(TableSchema s, int from, int n) {
        Table t = Table.from(s);
        for (int i = from; i < from + n; i++) {
            t.addRow("h" + i, i * 0.5, 1_700_000_000_000L + i);
        }
        return t;
    }

    @Test
    void regular() {
        TableSchema s = schema("retry_regular");
        server.faults().failNext(4, StatusCode.RateLimited, "slow down").failNext(2, StatusCode.RegionBusy, "busy");
        Result<WriteOk, Err> r = db.write(rows(s, 0, 50)).join();
        assertTrue(r.isOk(), () -> String.valueOf(r.getErr()));
        assertEquals(50, server.rowCount("retry_regular"));
        assertEquals(6, server.faults().injectedCount());
    }

    @Test
    void stream() {
        TableSchema s = schema("retry_stream");
        server.faults().failNext(3, StatusCode.RateLimited, "slow down");
        StreamWriter<Table, WriteOk> w = db.streamWriter();
        w.write(rows(s, 0, 20)).write(rows(s, 20, 20)).write(rows(s, 40, 10));
        WriteOk ok = w.completed().join();
        assertEquals(50, server.rowCount("retry_stream"), "stored once each (last write wins on replays)");
        assertTrue(ok.affectedRows() >= 50, "ack " + ok.affectedRows());
        assertTrue(server.faults().injectedCount() >= 1);
    }

    @Test
    void batching() {
        TableSchema s = schema("retry_batching");
        server.faults().failNext(5, StatusCode.RateLimited, "slow down");
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder()
                .maxBatchRows(25).build())) {
            for (int i = 0; i < 200; i++) {
                fs.add(w.write(s, "h" + i, i * 0.5, 1_700_000_000_000L + i));
            }
            assertTrue(w.flush(Duration.ofMinutes(2)));
        }
        fs.forEach(CompletableFuture::join);
        assertEquals(200, server.rowCount("retry_batching"));
        assertEquals(5, server.faults().injectedCount());
    }

    @Test
    void batchingOnTheBulkPath() {
        TableSchema s = schema("retry_batching_bulk");
        server.faults().failNext(2, StatusCode.RateLimited, "slow down").failBulkBatch(1, StatusCode.RateLimited,
                "slow down");
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(25)
                .path(BatchingWriter.Path.Bulk).build())) {
            for (int i = 0; i < 200; i++) {
                fs.add(w.write(s, "h" + i, i * 0.5, 1_700_000_000_000L + i));
            }
            assertTrue(w.flush(Duration.ofMinutes(2)));
        }
        fs.forEach(CompletableFuture::join);
        assertEquals(200, server.rowCount("retry_batching_bulk"));
    }

    @Test
    void bulkTableCreationUnderRetryableErrors() {
        TableSchema s = schema("retry_bulk_ddl");
        server.faults().failNext(3, StatusCode.RegionBusy, "busy");
        try (BulkStreamWriter bulk = db.bulkStreamWriter(s)) {
            TableBufferRoot batch = bulk.tableBufferRoot(100);
            batch.addTable(rows(s, 0, 100));
            bulk.writeNext();
            assertEquals(100, bulk.completed());
        }
        assertEquals(100, server.rowCount("retry_bulk_ddl"));
        assertEquals(3, server.faults().injectedCount());
    }

    @Test
    void bulkBatches() {
        TableSchema s = schema("retry_bulk");
        try (BulkStreamWriter bulk = db.bulkStreamWriter(s)) {
            server.faults().failBulkBatch(2, StatusCode.RateLimited, "slow down");
            TableBufferRoot batch = bulk.tableBufferRoot(100);
            for (int b = 0; b < 4; b++) {
                batch.addTable(rows(s, b * 100, 100));
                bulk.writeNext();
            }
            assertEquals(400, bulk.completed());
        }
        assertEquals(400, server.rowCount("retry_bulk"));
    }
}
