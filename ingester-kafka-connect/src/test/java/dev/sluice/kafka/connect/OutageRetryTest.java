package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * With the retry settings left at their defaults, a GreptimeDB that goes away for a few seconds mid-stream and
 * comes back on the same port costs no record and no redelivery: the client keeps retrying within
 * {@code retry.delivery.timeout.ms}, as the configuration reference says.
 */
class OutageRetryTest {
    private static final String TOPIC = "cpu";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private GreptimeTestServer server;
    private GreptimeSinkTask task;

    @AfterEach
    void stopAll() {
        if (task != null) {
            task.stop();
        }
        if (server != null) {
            server.close();
        }
    }

    static SinkRecord rec(long offset) {
        Map<String, Object> v = new HashMap<>();
        v.put("host", "h" + offset);
        v.put("cpu", offset * 0.5);
        return new SinkRecord(TOPIC, 0, null, null, null, v, offset, 1_700_000_000_000L + offset,
                TimestampType.CREATE_TIME);
    }

    static List<SinkRecord> records(long from, int n) {
        List<SinkRecord> out = new ArrayList<>();
        for (long i = from; i < from + n; i++) {
            out.add(rec(i));
        }
        return out;
    }

    @Test
    void rowsWrittenDuringAShortOutageAreStoredWithTheDefaultRetrySettings() throws Exception {
        server = GreptimeTestServer.start();
        FakeContext ctx = new FakeContext(false);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        // Only the connection and the tags: every retry.* setting keeps its default.
        task.start(Map.of(GreptimeSinkConfig.ENDPOINTS, server.endpoint(), GreptimeSinkConfig.TAGS, "host",
                GreptimeSinkConfig.FLUSH_INTERVAL, "20"));
        task.open(List.of(P0));
        task.put(records(0, 100));
        assertEquals(100L, task.preCommit(Map.of(P0, new OffsetAndMetadata(0))).get(P0).offset());

        server.stop();
        task.put(records(100, 100)); // sent, refused (connection refused), retried
        Thread.sleep(4_000); // scenario timing: the outage, longer than five attempts with the default backoff take
        server.resume();

        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        Long committed = null;
        while (System.nanoTime() < deadline) {
            OffsetAndMetadata o = task.preCommit(Map.of(P0, new OffsetAndMetadata(0))).get(P0);
            committed = o == null ? null : o.offset();
            if (committed != null && committed == 200L) {
                break;
            }
            Thread.sleep(50); // the simulated worker's poll interval: the loop ends on its condition or deadline
        }
        assertEquals(200L, committed, "every record committed once the server was back");
        assertEquals(200, server.rowCount(TOPIC));
        assertTrue(ctx.rewinds.isEmpty(), "no redelivery was needed: " + ctx.rewinds);
    }
}
