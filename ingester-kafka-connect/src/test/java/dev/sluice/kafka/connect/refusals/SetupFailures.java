package dev.sluice.kafka.connect.refusals;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import dev.sluice.testkit.GreptimeTestServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Runs a sink task with a dead-letter queue against a server whose refusals are about the settings, and checks
 * that the task fails for good with no record dead-lettered, no offset committed and nothing stored.
 */
final class SetupFailures {
    private SetupFailures() {
    }

    private static final TopicPartition P0 = new TopicPartition("cpu", 0);

    /** A context whose dead-letter queue records what it is given. */
    static final class Context implements SinkTaskContext, ErrantRecordReporter {
        final List<SinkRecord> deadLettered = new ArrayList<>();

        @Override
        public synchronized Future<Void> report(SinkRecord record, Throwable error) {
            deadLettered.add(record);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public Map<String, String> configs() {
            return Map.of();
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
        }

        @Override
        public void timeout(long timeoutMs) {
        }

        @Override
        public Set<TopicPartition> assignment() {
            return Set.of(P0);
        }

        @Override
        public void pause(TopicPartition... partitions) {
        }

        @Override
        public void resume(TopicPartition... partitions) {
        }

        @Override
        public void requestCommit() {
        }

        @Override
        public ErrantRecordReporter errantRecordReporter() {
            return this;
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return null;
        }
    }

    private static List<SinkRecord> records() {
        List<SinkRecord> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Map<String, Object> v = new HashMap<>(Map.of("host", "h" + i, "v", 1.0 + i));
            out.add(new SinkRecord("cpu", 0, null, null, null, v, i, 1_700_000_000_000L + i,
                    TimestampType.CREATE_TIME));
        }
        return out;
    }

    static void assertSetupFailure(String hints, java.util.function.Consumer<GreptimeTestServer> fault) {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            Map<String, String> m = new HashMap<>();
            m.put(GreptimeSinkConfig.ENDPOINTS, server.endpoint());
            m.put(GreptimeSinkConfig.TAGS, "host");
            m.put(GreptimeSinkConfig.RETRY_BACKOFF, "1");
            m.put(GreptimeSinkConfig.RETRY_BACKOFF_MAX, "5");
            if (hints != null) {
                m.put(GreptimeSinkConfig.HINTS, hints);
            }
            Context ctx = new Context();
            GreptimeSinkTask task = new GreptimeSinkTask();
            task.initialize(ctx);
            try {
                task.start(m);
            } catch (ConnectException refusedAtStart) {
                assertEquals(List.of(), ctx.deadLettered);
                return; // refused as a setting before any record: a setup failure too
            }
            try {
                task.open(List.of(P0));
                if (fault != null) {
                    fault.accept(server);
                }
                task.put(records());
                Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(
                        new HashMap<>(Map.of(P0, new OffsetAndMetadata(0))));
                String facts = "committed " + committed + ", dead-lettered " + ctx.deadLettered.size()
                        + " records, stored " + server.rowCount("cpu") + " rows";
                assertEquals(List.of(), ctx.deadLettered, "no record is to blame: " + facts);
                assertFalse(committed.containsKey(P0) && committed.get(P0).offset() > 0, "nothing committed: " + facts);
                ConnectException e = assertThrows(ConnectException.class, () -> task.put(List.of()));
                assertFalse(e instanceof RetriableException, e.toString());
                assertEquals(0, server.rowCount("cpu"));
            } finally {
                try {
                    task.stop();
                } catch (RuntimeException ignored) {
                    // the task failed already
                }
            }
        }
    }
}
