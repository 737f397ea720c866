package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import java.util.ArrayList;
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

/** The tombstones of one put are sent as one delete per table, after the inserts before them. */
class TombstonesOfOnePutTravelTogetherTest {
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
        props.put(GreptimeSinkConfig.FLUSH_INTERVAL, "60000");
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

    @Test
    void tenTombstonesAfterTheirInsertsInOnePutAreOneDeleteRequest() {
        List<SinkRecord> put = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            put.add(record(i, "h" + i, 1.0));
        }
        for (int i = 0; i < 10; i++) {
            put.add(record(12 + i, "h" + i, null));
        }
        task.put(put);

        Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of(P0, new OffsetAndMetadata(0)));
        assertEquals(22, committed.get(P0).offset());
        assertEquals(2, server.rowCount(TOPIC), "h10 and h11 remain");
        assertEquals(1, server.requests().stream().filter(r -> r.kind().equals("delete")).count());
    }

    @Test
    void anInsertAfterATombstoneOfItsRowInTheSamePutIsKept() {
        task.put(List.of(record(0, "h0", 1.0), record(1, "h0", null), record(2, "h0", 3.0)));

        Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of(P0, new OffsetAndMetadata(0)));
        assertEquals(3, committed.get(P0).offset());
        List<Map<String, Object>> rows = server.rows(TOPIC);
        assertEquals(1, rows.size());
        assertEquals(3.0, rows.get(0).get("cpu"));
    }
}
