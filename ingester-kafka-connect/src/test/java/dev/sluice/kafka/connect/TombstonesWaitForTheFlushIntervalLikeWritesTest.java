package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tombstones are held across puts until the flush interval passes or the offsets are committed, as writes wait in
 * the batching writer: many small puts with a tombstone each share delete requests, a tombstone of the last put
 * reaches GreptimeDB by the next commit, and its offset is committed only once its delete is acknowledged.
 */
class TombstonesWaitForTheFlushIntervalLikeWritesTest {
    private static final String TOPIC = "cpu";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private GreptimeTestServer server;
    private GreptimeSinkTask task;

    @BeforeEach
    void start() {
        server = GreptimeTestServer.start();
        task = new GreptimeSinkTask();
        task.initialize(new FakeContext(false));
        Map<String, String> props = new HashMap<>();
        props.put(GreptimeSinkConfig.ENDPOINTS, server.endpoint());
        props.put(GreptimeSinkConfig.TAGS, "host");
        props.put(GreptimeSinkConfig.TS_FIELD, "t");
        props.put(GreptimeSinkConfig.DELETES, "true");
        // Nothing is due by age during the test: what is sent before the commit is sent for another reason.
        props.put(GreptimeSinkConfig.FLUSH_INTERVAL, "600000");
        task.start(props);
        task.open(List.of(P0));
    }

    @AfterEach
    void stop() {
        task.stop();
        server.close();
    }

    private static SinkRecord record(long offset, String host, Double cpu) {
        Map<String, Object> key = new HashMap<>();
        key.put("host", host);
        key.put("t", 5L);
        Map<String, Object> value = null;
        if (cpu != null) {
            value = new HashMap<>(key);
            value.put("cpu", cpu);
        }
        return new SinkRecord(TOPIC, 0, null, key, null, value, offset, null, TimestampType.NO_TIMESTAMP_TYPE);
    }

    private long deleteRequests() {
        return server.requests().stream().filter(r -> r.kind().equals("delete")).count();
    }

    @Test
    void twoHundredPutsOfOneTombstoneEachShareDeleteRequests() {
        int puts = 200;
        for (int i = 0; i < puts; i++) {
            // A write of a new row, and a tombstone of the row the put before wrote.
            task.put(List.of(record(2L * i, "w" + i, 1.0), record(2L * i + 1, "w" + (i - 1), null)));
        }

        Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of(P0, new OffsetAndMetadata(0)));
        assertEquals(2L * puts, committed.get(P0).offset());
        long deletes = deleteRequests();
        assertTrue(deletes < puts / 10, puts + " puts with one tombstone each took " + deletes + " delete requests;"
                + " held until the flush interval or the commit, they share a few");
        List<Map<String, Object>> rows = server.rows(TOPIC);
        assertEquals(1, rows.size(), "every row but the last was deleted after its write: " + rows);
        assertEquals("w" + (puts - 1), rows.get(0).get("host"));
    }

    @Test
    void aTombstoneOfTheLastPutIsSentByTheNextCommitAfterItsWrite() {
        task.put(List.of(record(0, "h0", 1.0), record(1, "h0", null), record(2, "h1", 2.0)));
        assertEquals(0, deleteRequests(), "the tombstone waits for the flush interval like the writes around it");

        Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of(P0, new OffsetAndMetadata(0)));
        assertEquals(3, committed.get(P0).offset());
        assertEquals(1, deleteRequests());
        List<Map<String, Object>> rows = server.rows(TOPIC);
        assertEquals(1, rows.size(), "h0 was written, then deleted: " + rows);
        assertEquals("h1", rows.get(0).get("host"));
    }
}
