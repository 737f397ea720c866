package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.mapping.Field;
import dev.sluice.mapping.Tag;
import dev.sluice.mapping.Timestamp;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.StatusCode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The DataStream sink's mapping of annotated records and its metrics in Flink's metric group. */
class DataStreamSinkTest {
    static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    /** A reading, as an application would declare it. */
    @dev.sluice.mapping.Table("readings")
    public record Reading(@Tag(name = "sensor_id") String sensorId, @Field double celsius,
                          @Field(name = "ok") boolean healthy, @Timestamp(name = "taken_at") Instant takenAt) {
    }

    @Test
    void annotatedRecordsAreWrittenAsTheirTable(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        Instant t0 = Instant.parse("2024-01-01T00:00:00Z");
        env.fromSequence(0, 1999).map(i -> new Reading("s" + (i % 10), i / 10.0, i % 2 == 0, t0.plusMillis(i)))
                .returns(TypeInformation.of(Reading.class))
                .sinkTo(GreptimeSink.<Reading>builder().endpoints(server.endpoint()).annotated(Reading.class).build());
        env.execute("annotated");
        TableSchema s = server.schema("readings");
        assertEquals(SemanticType.Tag, s.column(s.indexOf("sensor_id")).semanticType());
        assertEquals(DataType.Float64, s.column(s.indexOf("celsius")).dataType());
        assertEquals(DataType.Bool, s.column(s.indexOf("ok")).dataType());
        assertEquals("taken_at", s.column(s.timestampIndex()).name());
        List<Map<String, Object>> rows = server.rows("readings");
        assertEquals(2000, rows.size());
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("taken_at") - t0.toEpochMilli();
            assertEquals("s" + (i % 10), r.get("sensor_id"));
            assertEquals(i / 10.0, r.get("celsius"));
            assertEquals(i % 2 == 0, r.get("ok"));
        }
    }

    @Test
    void theRegularPathAddsColumnsAnExistingTableLacks(GreptimeTestServer s) throws Exception {
        TableSchema old = TableSchema.newBuilder("evolving").addTag("host", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        dev.sluice.GreptimeDB db = dev.sluice.GreptimeDB.create(
                dev.sluice.GreptimeOptions.newBuilder(s.endpoint(), "public").build());
        try {
            assertTrue(db.write(dev.sluice.data.Table.from(old).addRow("old", 0L)).join().isOk());
        } finally {
            db.shutdownGracefully();
        }
        TableSchema wider = TableSchema.newBuilder("evolving").addTag("host", DataType.String)
                .addField("load", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.fromSequence(1, 100).sinkTo(GreptimeSink.<Long>builder().endpoints(s.endpoint())
                .table(wider, (i, row) -> row.setString(0, "new").setDouble(1, i * 1.5).setLong(2, i)).build());
        env.execute("evolve");
        TableSchema stored = s.schema("evolving");
        assertEquals(DataType.Float64, stored.column(stored.indexOf("load")).dataType());
        assertEquals(101, s.rowCount("evolving"));
    }

    static volatile GreptimeTestServer server;

    @Test
    void theWriterReportsRowsBatchesAndRetriesInFlinksMetricGroup(GreptimeTestServer s) throws Exception {
        server = s;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        TableSchema schema = TableSchema.newBuilder("metered").addTag("host", DataType.String)
                .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        env.fromSequence(0, 9_999).map(i -> {
            if (i == 5_000) {
                server.faults().failNext(2, StatusCode.RateLimited, "slow down");
            }
            return i;
        }).returns(Long.class).sinkTo(GreptimeSink.<Long>builder().endpoints(s.endpoint()).batch(500, 1 << 20)
                .table(schema, (i, row) -> row.setString(0, "h" + (i % 3)).setLong(1, i).setLong(2, i)).build());
        JobExecutionResult result = env.execute("metered");
        assertEquals(10_000, s.rowCount("metered"));
        Map<String, Metric> metrics = REPORTER.findMetrics(result.getJobID(), "greptime");
        assertEquals(10_000, sum(metrics, "rowsWritten"), "rows the testkit stored, as counted by the writers");
        assertEquals(10_000, sum(REPORTER.findMetrics(result.getJobID(), "numRecordsSend"), "numRecordsSend"),
                "Flink's standard sink counter");
        assertTrue(sum(metrics, "bytesWritten") > 10_000 * 10, metrics.keySet().toString());
        assertTrue(sum(metrics, "batches") >= 20, "batches of at most 500 rows");
        assertEquals(2, sum(metrics, "retries"), "the two refused requests were retried");
        assertEquals(0, sum(metrics, "failures"));
        assertTrue(metrics.keySet().stream().anyMatch(k -> k.endsWith("greptime.inFlightRows")),
                metrics.keySet().toString());
    }

    private static long sum(Map<String, Metric> metrics, String name) {
        long total = 0;
        for (Map.Entry<String, Metric> e : metrics.entrySet()) {
            if (e.getKey().endsWith("." + name)) {
                Metric m = e.getValue();
                total += m instanceof Counter c ? c.getCount() : ((Number) ((Gauge<?>) m).getValue()).longValue();
            }
        }
        return total;
    }
}
