package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tombstones between writes are held per table and sent together, not one request each, while every row still ends
 * as the topic's records applied in order would leave it; offsets are committed only for stored records.
 */
class TombstonesBetweenWritesShareDeleteRequestsTest {
    private static final String TOPIC = "cpu";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    /** Records per put, as Connect's consumer hands them over (its max.poll.records default). */
    private static final int PUT = 500;
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

    private void putInChunks(List<SinkRecord> records, int chunk) {
        for (int i = 0; i < records.size(); i += chunk) {
            task.put(new ArrayList<>(records.subList(i, Math.min(records.size(), i + chunk))));
        }
    }

    private long deleteRequests() {
        return server.requests().stream().filter(r -> r.kind().equals("delete")).count();
    }

    @Test
    void twoThousandRecordsAlternatingWritesAndTombstonesOfDistinctRowsSendFarFewerDeleteRequestsThanDeletes() {
        List<SinkRecord> records = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            records.add(record(2L * i, "w" + i, 1.0));
            records.add(record(2L * i + 1, "w" + (i - 1), null)); // the row written before this one
        }
        putInChunks(records, PUT);

        Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of(P0, new OffsetAndMetadata(0)));
        assertEquals(2_000, committed.get(P0).offset());
        long deletes = deleteRequests();
        assertTrue(deletes <= 2_000 / PUT, "1,000 tombstones in puts of " + PUT + " records took " + deletes
                + " delete requests; one per put and table is enough");
        List<Map<String, Object>> rows = server.rows(TOPIC);
        assertEquals(1, rows.size(), "every row but the last was deleted after its write: " + rows.size() + " left");
        assertEquals("w999", rows.get(0).get("host"));
    }

    @Test
    void aRandomSequenceOfWritesAndTombstonesOverFewRowsEndsAsApplyingItInOrder() {
        Random random = new Random(20_260_101L);
        String[] hosts = {"a", "b", "c", "d", "e"};
        List<SinkRecord> records = new ArrayList<>();
        Map<String, Double> expected = new TreeMap<>();
        for (int i = 0; i < 3_000; i++) {
            String host = hosts[random.nextInt(hosts.length)];
            if (random.nextInt(3) == 0) {
                records.add(record(i, host, null));
                expected.remove(host);
            } else {
                double cpu = i;
                records.add(record(i, host, cpu));
                expected.put(host, cpu);
            }
        }
        for (int i = 0; i < records.size(); ) {
            int n = 1 + random.nextInt(PUT);
            task.put(new ArrayList<>(records.subList(i, Math.min(records.size(), i + n))));
            i += n;
        }

        Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of(P0, new OffsetAndMetadata(0)));
        assertEquals(3_000, committed.get(P0).offset());
        Map<String, Double> stored = new TreeMap<>();
        for (Map<String, Object> row : server.rows(TOPIC)) {
            stored.put((String) row.get("host"), ((Number) row.get("cpu")).doubleValue());
        }
        assertEquals(expected, stored);
    }
}
