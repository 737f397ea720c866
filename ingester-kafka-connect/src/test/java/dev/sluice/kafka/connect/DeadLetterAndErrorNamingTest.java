package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Records the sink cannot write: a dead-lettered record must fit the dead-letter producer (Kafka Connect reports a
 * refused send as a success), and errors name the record by topic, partition and offset only.
 */
class DeadLetterAndErrorNamingTest {
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
        if (task != null) {
            try {
                task.stop();
            } catch (RuntimeException ignored) {
                // a test that failed the task already
            }
        }
        server.close();
    }

    private FakeContext start(boolean dlq, String... kv) {
        Map<String, String> m = new HashMap<>();
        m.put(GreptimeSinkConfig.ENDPOINTS, server.endpoint());
        m.put(GreptimeSinkConfig.TAGS, "host");
        m.put(GreptimeSinkConfig.FLUSH_INTERVAL, "20");
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        FakeContext ctx = new FakeContext(dlq);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(m);
        task.open(List.of(P0));
        return ctx;
    }

    static SinkRecord rec(long offset, Object value) {
        return new SinkRecord(TOPIC, 0, null, null, null, value, offset, 1_700_000_000_000L + offset,
                TimestampType.CREATE_TIME);
    }

    static Map<String, Object> row(String host, Object cpu) {
        Map<String, Object> m = new HashMap<>();
        m.put("host", host);
        m.put("cpu", cpu);
        return m;
    }

    private Long committed() {
        OffsetAndMetadata o = task.preCommit(Map.of(P0, new OffsetAndMetadata(0))).get(P0);
        return o == null ? null : o.offset();
    }

    /** A record that cannot be mapped (a bare string value), 2 MiB long. */
    static SinkRecord hugeBadRecord(long offset) {
        return rec(offset, "x".repeat(2 << 20));
    }

    @Test
    void aBadRecordOverTheDeadLetterProducersLimitFailsTheTaskInsteadOfVanishing() {
        FakeContext ctx = start(true);
        task.put(List.of(rec(0, row("a", 1.0))));
        ConnectException e = assertThrows(ConnectException.class, () -> task.put(List.of(hugeBadRecord(1))));
        assertTrue(e.getMessage().contains("topic=cpu partition=0 offset=1"), e.getMessage());
        assertTrue(e.getMessage().contains("1048576") && e.getMessage().contains("dlq.max.record.bytes"), e.getMessage());
        assertEquals(List.of(), ctx.reporter.records, "nothing was handed to a dead-letter queue that would drop it");
        assertThrows(ConnectException.class, () -> task.put(List.of(rec(2, row("b", 2.0)))), "the task stays failed");
    }

    @Test
    void theOffsetOfATooLargeBadRecordIsNotCommitted() {
        start(true);
        task.put(List.of(rec(0, row("a", 1.0))));
        assertThrows(ConnectException.class, () -> task.put(List.of(hugeBadRecord(1))));
        assertEquals(1L, committed(), "committed up to the stored record, not past the refused one");
        assertEquals(1, server.rowCount(TOPIC));
    }

    @Test
    void aLargerLimitLetsTheRecordGoToTheDeadLetterQueue() {
        FakeContext ctx = start(true, GreptimeSinkConfig.DLQ_MAX_BYTES, Integer.toString(4 << 20));
        task.put(List.of(rec(0, row("a", 1.0)), hugeBadRecord(1)));
        assertEquals(List.of(1L), ctx.reporter.records.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(2L, committed());
    }

    @Test
    void theConnectorsProducerOverrideSetsTheLimitWhenTheSinkOptionIsUnset() {
        FakeContext ctx = start(true, "producer.override.max.request.size", Integer.toString(4 << 20));
        task.put(List.of(hugeBadRecord(0)));
        assertEquals(List.of(0L), ctx.reporter.records.stream().map(SinkRecord::kafkaOffset).toList());
    }

    @Test
    void connectsErrorHeadersCountAgainstTheLimit() {
        SinkRecord nearTheLimit = rec(0, "x".repeat(1_040_000)); // fits 1 MiB alone, not with a stack trace header
        FakeContext plain = start(true);
        task.put(List.of(nearTheLimit));
        assertEquals(List.of(0L), plain.reporter.records.stream().map(SinkRecord::kafkaOffset).toList());
        task.stop();
        task = null;
        FakeContext withHeaders = start(true, "errors.deadletterqueue.context.headers.enable", "true");
        assertThrows(ConnectException.class, () -> task.put(List.of(nearTheLimit)));
        assertEquals(List.of(), withHeaders.reporter.records);
    }

    @Test
    void aSmallBadRecordStillGoesToTheDeadLetterQueue() {
        FakeContext ctx = start(true);
        task.put(List.of(rec(0, "not a map")));
        assertEquals(List.of(0L), ctx.reporter.records.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(1L, committed());
    }

    @Test
    void aValueThatDoesNotFitItsColumnIsNamedByTopicPartitionAndOffsetNotByItsPlaceInABatch() {
        FakeContext ctx = start(true, GreptimeSinkConfig.COLUMN_TYPES, "cpu:Int8",
                GreptimeSinkConfig.FLUSH_INTERVAL, "60000");
        task.put(List.of(rec(0, row("a", 1L)), rec(1, row("b", 2L)), rec(2, row("c", 3L)), rec(3, row("d", 1000L))));
        assertEquals(List.of(3L), ctx.reporter.records.stream().map(SinkRecord::kafkaOffset).toList());
        String message = ctx.reporter.errors.get(0).getMessage();
        assertTrue(message.contains("topic=cpu partition=0 offset=3"), message);
        assertTrue(message.contains("column=cpu"), message);
        assertFalse(message.matches("(?s).*\\brow \\d+.*"), message);
        assertEquals(4L, committed());
        assertEquals(3, server.rowCount(TOPIC));
    }

    @Test
    void withoutADeadLetterQueueTheFailureNamesTheRecordNotABatchRow() {
        start(false, GreptimeSinkConfig.COLUMN_TYPES, "cpu:Int8", GreptimeSinkConfig.FLUSH_INTERVAL, "60000");
        ConnectException e = assertThrows(ConnectException.class, () -> task.put(List.of(rec(0, row("a", 1L)),
                rec(1, row("b", 2L)), rec(2, row("d", 1000L)))));
        assertTrue(e.getMessage().contains("topic=cpu partition=0 offset=2"), e.getMessage());
        assertFalse(e.getMessage().matches("(?s).*\\brow \\d+.*"), e.getMessage());
    }

    @Test
    void theStartLineSaysWhichWritePathTheTaskUses() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        String bulk;
        String regular;
        try {
            start(false);
            task.stop();
            task = null;
            regular = captured.toString(StandardCharsets.UTF_8);
            captured.reset();
            start(false, GreptimeSinkConfig.WRITE_PATH, "bulk");
            bulk = captured.toString(StandardCharsets.UTF_8);
        } finally {
            System.setErr(err);
        }
        String regularLine = regular.lines().filter(l -> l.contains("task started")).findFirst().orElse(null);
        String bulkLine = bulk.lines().filter(l -> l.contains("task started")).findFirst().orElse(null);
        assertTrue(regularLine != null && regularLine.contains("write path regular"), regular);
        assertTrue(bulkLine != null && bulkLine.contains("write path bulk"), bulk);
    }
}
