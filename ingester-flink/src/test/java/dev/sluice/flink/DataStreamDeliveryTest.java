package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A DataStream job at parallelism 4 with checkpoints every second writes every row into the testkit, values
 * intact, across a failure injected in a mapper after a checkpoint and across the server being away for 10 s.
 *
 * <p>Each job writes 1,000,000 rows; {@code -Dsluice.flink.rows=N} runs the same jobs with another count.
 */
class DataStreamDeliveryTest {
    static final long ROWS = Long.getLong("sluice.flink.rows", 1_000_000L);
    static final long BASE_MS = 1_704_067_200_000L; // 2024-01-01T00:00:00Z

    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    @BeforeEach
    void reset(GreptimeTestServer server) {
        FlinkJobs.FailOnceAfterCheckpoint.FIRED.set(0);
        server.clear(); // one server per class: keep only this test's rows in memory
    }


    private static GreptimeSink<Long> sink(GreptimeTestServer server, String table, WritePath path) {
        TableSchema schema = TableSchema.newBuilder(table)
                .addTag("host", DataType.String).addField("v", DataType.Float64).addField("n", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        return GreptimeSink.<Long>builder()
                .endpoints(server.endpoint())
                .writePath(path)
                .batch(5_000, 8L << 20)
                .table(schema, (i, row) -> row.setString(0, "h" + (i % 64)).setDouble(1, i * 0.5).setLong(2, i)
                        .setLong(3, BASE_MS + i))
                .build();
    }

    private static void job(StreamExecutionEnvironment env, double rowsPerSecond, GreptimeSink<Long> sink) {
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(i -> i, ROWS,
                RateLimiterStrategy.perSecond(rowsPerSecond), Types.LONG);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "numbers")
                .map(new FlinkJobs.FailOnceAfterCheckpoint<>()).returns(Types.LONG)
                .sinkTo(sink);
    }

    /** Every row 0..ROWS-1 is stored exactly once with its values; read from the testkit. */
    static void assertAllStored(GreptimeTestServer server, String table) {
        List<Map<String, Object>> rows = server.rows(table);
        assertEquals(ROWS, rows.size(), "rows stored in " + table);
        BitSet seen = new BitSet((int) ROWS);
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("n");
            assertEquals(BASE_MS + i, r.get("ts"), "ts of row " + i);
            assertEquals("h" + (i % 64), r.get("host"), "host of row " + i);
            assertEquals(i * 0.5, (Double) r.get("v"), 0.0, "v of row " + i);
            seen.set((int) i);
        }
        assertEquals(ROWS, seen.cardinality(), "distinct rows");
    }

    @Test
    void everyRowIsStoredAcrossAFailureAfterACheckpoint(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = FlinkJobs.env(4, 3);
        job(env, Math.max(ROWS / 6.0, 10_000), sink(server, "ds_restart", WritePath.REGULAR));
        env.execute("restart");
        assertEquals(1, FlinkJobs.FailOnceAfterCheckpoint.FIRED.get(), "the injected failure fired");
        assertAllStored(server, "ds_restart");
    }

    @Test
    void everyRowIsStoredAcrossAFailureAfterACheckpointOnTheBulkPath(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = FlinkJobs.env(4, 3);
        job(env, Math.max(ROWS / 6.0, 10_000), sink(server, "ds_restart_bulk", WritePath.BULK));
        env.execute("restart-bulk");
        assertEquals(1, FlinkJobs.FailOnceAfterCheckpoint.FIRED.get(), "the injected failure fired");
        assertAllStored(server, "ds_restart_bulk");
    }

    @Test
    void everyRowIsStoredWhenTheServerIsAwayForTenSecondsMidJob(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = FlinkJobs.env(4, 3);
        // About 20 s of input, so that the 10 s outage falls in the middle of the job.
        job(env, ROWS / 20.0, sink(server, "ds_outage", WritePath.REGULAR));
        JobClient client = env.executeAsync("outage");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.rowCount("ds_outage") < ROWS / 5 && System.nanoTime() < deadline) {
            Thread.sleep(50); // a poll of the stored rows, bounded by the deadline
        }
        long before = server.rowCount("ds_outage");
        assertTrue(before > 0 && before < ROWS, "the outage starts mid-job (" + before + " rows stored)");
        server.stop();
        Thread.sleep(10_000); // scenario timing: the outage lasts ten seconds, not a wait
        server.resume();
        client.getJobExecutionResult().get(5, TimeUnit.MINUTES);
        assertEquals(1, FlinkJobs.FailOnceAfterCheckpoint.FIRED.get(), "the injected failure fired");
        assertAllStored(server, "ds_outage");
    }

}
