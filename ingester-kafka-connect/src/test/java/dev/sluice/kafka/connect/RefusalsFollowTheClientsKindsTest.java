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
 * The sink reads what a refusal is about from the client ({@code Err.kind()}): setup fails the task with nothing
 * dead-lettered, transient sends the records again, data dead-letters the record, naming the column the server's
 * message names.
 */
class RefusalsFollowTheClientsKindsTest {
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
    void aMissingTableFailsTheTaskAndDeadLettersNothing() {
        FakeContext ctx = start();
        server.faults().failEvery(1, StatusCode.TableNotFound, "Table not found: greptime.public.cpu");
        task.put(records("a", "b"));
        assertFalse(commit().containsKey(P0), "nothing stored, nothing committed");
        ConnectException e = assertThrows(ConnectException.class, () -> task.put(List.of()));
        assertFalse(e instanceof RetriableException, e.toString());
        assertTrue(e.getMessage().contains("for a reason no record causes"), e.getMessage());
        assertEquals(List.of(), ctx.reporter.records);
    }

    @Test
    void aPassingServerStateSendsTheRecordsAgainInsteadOfDeadLetteringThem() {
        FakeContext ctx = start();
        server.faults().failNext(3, StatusCode.IllegalState, "Region 1024 is in an illegal state");
        task.put(records("a", "b"));
        commit();
        assertThrows(RetriableException.class, () -> task.put(List.of()));
        assertEquals(Map.of(P0, 0L), ctx.rewinds);
        // Connect redelivers from the rewound offset; the server answers again by then.
        server.faults().reset();
        task.put(records("a", "b"));
        assertEquals(2, commit().get(P0).offset());
        assertEquals(2, server.rowCount(TOPIC));
        assertEquals(List.of(), ctx.reporter.records);
    }

    @Test
    void aRefusedRecordIsDeadLetteredNamingTheColumnTheServerNames() {
        FakeContext ctx = start();
        server.faults().refuseValue("host", "poison", StatusCode.InvalidArguments,
                "Column host of table cpu cannot hold this value");
        task.put(records("a", "poison", "c"));
        assertEquals(3, commit().get(P0).offset());
        assertEquals(1, ctx.reporter.records.size());
        assertEquals(1L, ctx.reporter.records.get(0).kafkaOffset());
        assertTrue(ctx.reporter.errors.get(0).getMessage().contains("table=cpu column=host"),
                ctx.reporter.errors.get(0).getMessage());
        assertEquals(2, server.rowCount(TOPIC));
    }

    @Test
    void anUnparsableTableOptionFailsTheTaskAndDeadLettersNothing() {
        FakeContext ctx = start();
        server.faults().failEvery(1, StatusCode.InvalidArguments, "Failed to parse table option, key: ttl, value: x");
        task.put(records("a", "b"));
        assertFalse(commit().containsKey(P0), "nothing stored, nothing committed");
        ConnectException e = assertThrows(ConnectException.class, () -> task.put(List.of()));
        assertFalse(e instanceof RetriableException, e.toString());
        assertEquals(List.of(), ctx.reporter.records);
        assertEquals(0, server.rowCount(TOPIC));
    }

    @Test
    void aMissingDatabaseFailsTheTaskAndDeadLettersNothing() {
        FakeContext ctx = start();
        server.faults().failEvery(1, StatusCode.InvalidArguments, "Failed to find schema, schema info: nodb");
        task.put(records("a", "b", "c"));
        assertFalse(commit().containsKey(P0), "nothing stored, nothing committed");
        ConnectException e = assertThrows(ConnectException.class, () -> task.put(List.of()));
        assertFalse(e instanceof RetriableException, e.toString());
        assertEquals(List.of(), ctx.reporter.records);
    }

    @Test
    void anUnsupportedAnswerFailsTheTaskWhateverTheRow() {
        FakeContext ctx = start();
        server.faults().failEvery(1, StatusCode.Unsupported, "Not supported: this write");
        task.put(records("a", "b"));
        assertFalse(commit().containsKey(P0), "nothing stored, nothing committed");
        assertThrows(ConnectException.class, () -> task.put(List.of()));
        assertEquals(List.of(), ctx.reporter.records);
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
