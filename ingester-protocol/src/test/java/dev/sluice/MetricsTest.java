package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetricsTest {
    static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    static Table rows(int n) {
        Table t = Table.from(CPU);
        for (int i = 0; i < n; i++) {
            t.addRow("h", (double) i, (long) i);
        }
        return t;
    }

    @Test
    void everyPathReportsRowsBytesLatencyFailuresRetriesAndGauges() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(new String[] {server.endpoint()}, "public")
                    .meterRegistry(registry).retryPolicy(RetryPolicy.defaults().withBackoff(Duration.ofMillis(1),
                            Duration.ofMillis(5))).build());
            String ep = server.endpoint();
            assertTrue(db.write(rows(100)).join().isOk());
            server.faults().failNext(1, StatusCode.RateLimited, "slow down");
            assertTrue(db.write(rows(10)).join().isOk());
            server.faults().failNext(1, StatusCode.InvalidArguments, "bad");
            assertTrue(!db.write(rows(5)).join().isOk());
            StreamWriter<Table, WriteOk> s = db.streamWriter();
            s.write(rows(7));
            s.completed().join();
            TableSchema bulkCpu = TableSchema.newBuilder("bulk_cpu").addTag("host", DataType.String)
                    .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
            try (BulkStreamWriter w = db.bulkStreamWriter(bulkCpu, BulkWrite.Config.newBuilder().build(), Context.newDefault())) {
                for (int i = 0; i < 50; i++) {
                    w.tableBufferRoot(64).addRow("h", 1.0, (long) i);
                }
                assertEquals(50, w.writeNext().join());
                w.completed();
            }
            try (BatchingWriter bw = db.batchingWriter(BatchingWriter.Config.defaults())) {
                bw.write(CPU, "b", 1.0, 999L);
            }

            assertEquals(110, registry.get("sluice.write.rows").tags("path", "regular", "table", "cpu", "endpoint", ep)
                    .counter().count() - 1, 0.0, "100 + 10 regular rows, plus the batching writer's one");
            assertEquals(7, registry.get("sluice.write.rows").tags("path", "stream", "table", "cpu").counter().count());
            assertEquals(50, registry.get("sluice.write.rows").tags("path", "bulk", "table", "bulk_cpu").counter().count());
            assertEquals(1, registry.get("sluice.write.retries").tags("path", "regular").counter().count());
            assertEquals(1, registry.get("sluice.write.failures").tags("path", "regular", "code", "1004",
                    "grpc", "INVALID_ARGUMENT").counter().count());
            assertTrue(registry.get("sluice.write.bytes").tags("path", "regular").counter().count() > 100 * 10);
            assertTrue(registry.get("sluice.write.bytes").tags("path", "bulk").counter().count() > 0);
            assertEquals(4, registry.get("sluice.write.latency").tags("path", "regular").timer().count());
            assertEquals(1, registry.get("sluice.write.latency").tags("path", "bulk").timer().count());
            assertEquals(0.0, registry.get("sluice.inflight.requests").gauge().value());
            assertEquals(0.0, registry.get("sluice.inflight.bytes").gauge().value());
            assertEquals(0.0, registry.get("sluice.bulk.allocated.bytes").gauge().value());
            assertEquals(0.0, registry.get("sluice.batching.buffered.rows").gauge().value());
            db.shutdownGracefully();
            assertNull(registry.find("sluice.write.rows").counter(), "meters leave the registry with the client");
        }
    }

    @Test
    void aRegistryOfTheWrongTypeIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GreptimeDB.create(
                GreptimeOptions.newBuilder(new String[] {"127.0.0.1:1"}, "public").meterRegistry("nope").build()));
        assertNotNull(e.getMessage());
        assertTrue(e.getMessage().contains("MeterRegistry"));
    }
}
