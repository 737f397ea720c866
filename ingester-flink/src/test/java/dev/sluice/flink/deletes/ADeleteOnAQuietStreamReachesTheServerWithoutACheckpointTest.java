package dev.sluice.flink.deletes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A delete the sink holds (to send it with the deletes after it) reaches GreptimeDB within the flush interval when
 * the stream goes quiet after it, with checkpointing off: no later element and no checkpoint is needed to send it.
 */
class ADeleteOnAQuietStreamReachesTheServerWithoutACheckpointTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    private static final LocalDateTime T0 = LocalDateTime.of(2024, 1, 1, 0, 0);
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    /** Lets the first two elements through, then none: the source stays open and emits nothing more. */
    private static final class TwoThenQuiet implements RateLimiter<org.apache.flink.api.connector.source.SourceSplit> {
        private int taken;

        @Override
        public CompletionStage<Void> acquire(int permits) {
            taken += permits;
            return taken <= 2 ? CompletableFuture.completedFuture(null) : new CompletableFuture<>();
        }
    }

    @Test
    void aWriteThenADeleteOfItsRowThenSilenceLeavesNoRow(GreptimeTestServer server) throws Exception {
        server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> r.kind().equals("delete"));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1); // checkpointing stays off
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        TypeInformation<Row> type = Types.ROW_NAMED(new String[] {"id", "name", "ts"}, Types.STRING, Types.STRING,
                Types.LOCAL_DATE_TIME);
        @SuppressWarnings({"unchecked", "rawtypes"})
        RateLimiterStrategy<org.apache.flink.api.connector.source.SourceSplit> twoThenQuiet =
                parallelism -> (RateLimiter) new TwoThenQuiet();
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(
                i -> i == 0 ? Row.ofKind(RowKind.INSERT, "k", "written", T0)
                        : Row.ofKind(RowKind.DELETE, "k", "written", T0),
                Long.MAX_VALUE, twoThenQuiet, type);
        var changes = env.fromSource(source, WatermarkStrategy.noWatermarks(), "write-then-delete").returns(type);
        t.createTemporaryView("quiet_changes", t.fromChangelogStream(changes, Schema.newBuilder()
                .column("id", "STRING NOT NULL").column("name", "STRING").column("ts", "TIMESTAMP(3) NOT NULL")
                .primaryKey("id", "ts").build(), ChangelogMode.all()));
        t.executeSql("CREATE TABLE quiet (id STRING, name STRING, ts TIMESTAMP(3), PRIMARY KEY (id, ts) NOT ENFORCED)"
                + " WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "',"
                + " 'sink.flush.interval'='200 ms', 'http-endpoint'='none')");
        TableResult job = t.executeSql("INSERT INTO quiet SELECT * FROM quiet_changes");
        try {
            server.faults().awaitHeld(1, DEADLINE); // the delete request arrived, stored and not yet answered

            assertTrue(server.tables().contains("quiet"), "the write before the delete was stored first");
            assertEquals(0, server.rowCount("quiet"), "the row is deleted");
        } finally {
            server.faults().release();
            job.getJobClient().orElseThrow().cancel().get();
        }
    }
}
