package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.metrics.MicrometerMetricsSink;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

@SharesJvm
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
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .metrics(MicrometerMetricsSink.of(registry)).retryPolicy(RetryPolicy.newBuilder().backoff(Duration.ofMillis(1),
                            Duration.ofMillis(5)).build()).build());
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
            try (BulkStreamWriter w = db.bulkStreamWriter(bulkCpu, BulkWrite.Config.newBuilder().build(), Context.newBuilder().build())) {
                for (int i = 0; i < 50; i++) {
                    w.tableBufferRoot(64).addRow("h", 1.0, (long) i);
                }
                assertEquals(50, w.writeNext().join());
                w.completed();
            }
            try (BatchingWriter bw = db.batchingWriter(BatchingWriter.Config.newBuilder().build())) {
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
    void aWritesRoomAndInFlightCountAreGivenBackBeforeItsCallerSeesTheAnswer() {
        // A caller that joined its write must not read the write as in flight: the client gives back its count
        // and budget before the caller's callback runs, not in a callback that runs after it.
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .metrics(MicrometerMetricsSink.of(registry)).build());
            try {
                for (int i = 0; i < 20; i++) {
                    double[] seen = db.write(rows(10)).thenApply(r -> {
                        assertTrue(r.isOk());
                        return new double[] {registry.get("sluice.inflight.requests").gauge().value(),
                                registry.get("sluice.inflight.bytes").gauge().value()};
                    }).join();
                    assertEquals(0.0, seen[0], "requests in flight seen by the caller's callback, write " + i);
                    assertEquals(0.0, seen[1], "budget bytes in use seen by the caller's callback, write " + i);
                }
                server.faults().failNext(1, StatusCode.InvalidArguments, "bad");
                double failedSeen = db.write(rows(5)).thenApply(r -> {
                    assertTrue(!r.isOk());
                    return registry.get("sluice.inflight.requests").gauge().value();
                }).join();
                assertEquals(0.0, failedSeen, "a failed write is given back before its caller sees the failure too");
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void aSinkOfAnyLibraryReceivesTheClientsEventsAndIsClosedWithIt() {
        // A sink written against the interface alone (no Micrometer type involved): what a user of another
        // metrics library writes. forClient is called once with the first endpoint; close when the client stops.
        List<String> events = new CopyOnWriteArrayList<>();
        AtomicLong rows = new AtomicLong();
        MetricsSink sink = new MetricsSink() {
            @Override
            public MetricsSink forClient(String endpoint) {
                events.add("forClient " + endpoint);
                return this;
            }

            @Override
            public void rows(String path, String table, long n) {
                rows.addAndGet(n);
                events.add("rows " + path + " " + table);
            }

            @Override
            public void close() {
                events.add("close");
            }
        };
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .metrics(sink).build());
            assertTrue(db.write(rows(12)).join().isOk());
            // another host: rows(3) would repeat rows(12)'s keys and the server would keep 12 rows
            assertTrue(db.write(Table.from(CPU).addRow("h2", 1.0, 1L).addRow("h2", 2.0, 2L).addRow("h2", 3.0, 3L))
                    .join().isOk());
            db.shutdownGracefully();
            assertEquals(15, rows.get());
            assertEquals(15, server.rowCount("cpu"));
            assertEquals(List.of("forClient " + server.endpoint(), "rows regular cpu", "rows regular cpu", "close"),
                    events);
        }
    }

    @Test
    void noSinkIsRefusedAndTheDefaultRecordsNothing() {
        GreptimeOptions.Builder b = GreptimeOptions.newBuilder("127.0.0.1:1", "public");
        NullPointerException e = assertThrows(NullPointerException.class, () -> b.metrics(null));
        assertTrue(e.getMessage().contains("sink"), e.getMessage());
        assertSame(MetricsSink.NONE, b.build().metrics());
    }
}
