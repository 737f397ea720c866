package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.StatusCode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The column a data refusal names is read by the client's one parser: the dead-lettered record's error names it
 * whether the server says "Invalid value for column c" or "Column c of table t".
 */
class TheDeadLetteredRecordNamesTheColumnWhicheverWayTheServerWordsItTest {
    private static final String TOPIC = "cpu";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private GreptimeTestServer server;
    private GreptimeSinkTask task;

    @BeforeEach
    void startServer() {
        server = GreptimeTestServer.start();
    }

    @AfterEach
    void stopAll() {
        try {
            task.stop();
        } catch (RuntimeException ignored) {
            // the task failed already
        }
        server.close();
    }

    private FakeContext start() {
        Map<String, String> m = new HashMap<>();
        m.put(GreptimeSinkConfig.ENDPOINTS, server.endpoint());
        m.put(GreptimeSinkConfig.TAGS, "host");
        m.put(GreptimeSinkConfig.RETRY_BACKOFF, "1");
        m.put(GreptimeSinkConfig.RETRY_BACKOFF_MAX, "5");
        m.put(GreptimeSinkConfig.FLUSH_TIMEOUT, "30000");
        FakeContext ctx = new FakeContext(true);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(m);
        task.open(List.of(P0));
        return ctx;
    }

    private static List<SinkRecord> records(String... hosts) {
        List<SinkRecord> out = new java.util.ArrayList<>();
        for (int i = 0; i < hosts.length; i++) {
            Map<String, Object> v = new HashMap<>();
            v.put("host", hosts[i]);
            v.put("cpu", 1.0 + i);
            out.add(new SinkRecord(TOPIC, 0, null, null, null, v, i, 1_700_000_000_000L + i,
                    TimestampType.CREATE_TIME));
        }
        return out;
    }

    /** preCommit sends what is buffered and waits for the answers (up to flush.timeout.ms): an event, no clock. */
    private Map<TopicPartition, OffsetAndMetadata> commit() {
        return task.preCommit(new HashMap<>(Map.of(P0, new OffsetAndMetadata(0))));
    }

    @Test
    void anInvalidValueForColumnMessageNamesTheColumn() {
        FakeContext ctx = start();
        server.faults().refuseValue("host", "bad", StatusCode.InvalidArguments, "Invalid value for column host: 'bad'");
        task.put(records("a", "bad", "c"));
        assertEquals(3, commit().get(P0).offset());
        assertEquals(1, ctx.reporter.records.size());
        assertEquals(1L, ctx.reporter.records.get(0).kafkaOffset());
        assertTrue(ctx.reporter.errors.get(0).getMessage().contains("table=cpu column=host"),
                ctx.reporter.errors.get(0).getMessage());
        assertEquals(2, server.rowCount(TOPIC));
    }
}
