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
import org.junit.jupiter.api.Test;

/**
 * Tombstones are held across puts until the flush interval passes or the offsets are committed, as writes wait in
 * the batching writer: many small puts with a tombstone each share delete requests, a tombstone of the last put
 * reaches GreptimeDB by the next commit, and its offset is committed only once its delete is acknowledged. The
 * tombstones of one put are one delete per table, after the inserts before them; at the default flush interval,
 * tombstones between writes still share requests, and every row ends as the topic's records applied in order
 * would leave it, with offsets committed only for stored records.
 */
class TombstonesWaitForTheFlushIntervalLikeWritesTest {
    private static final String TOPIC = "cpu";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private GreptimeTestServer server;
    private GreptimeSinkTask task;
    /** A flush interval longer than any test: what is sent before the commit is sent for another reason. */
    private static final String NEVER_BY_AGE = "600000";
    /** Records per put, as Connect's consumer hands them over (its max.poll.records default). */
    private static final int PUT = 500;

    /** Starts the task; a flush interval longer than the test means nothing is sent for its age. */
    private void start(String flushInterval) {
        server = GreptimeTestServer.start();
        task = new GreptimeSinkTask();
        task.initialize(new FakeContext(false));
        Map<String, String> props = new HashMap<>();
        props.put(GreptimeSinkConfig.ENDPOINTS, server.endpoint());
        props.put(GreptimeSinkConfig.TAGS, "host");
        props.put(GreptimeSinkConfig.TS_FIELD, "t");
        props.put(GreptimeSinkConfig.DELETES, "true");
        props.put(GreptimeSinkConfig.FLUSH_INTERVAL, flushInterval);
        task.start(props);
        task.open(List.of(P0));
    }

    @AfterEach
    void stop() {
        if (task != null) {
            task.stop();
            server.close();
        }
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
    void twoHundredPutsOfOneTombstoneEachShareDeleteRequests() {
        start(NEVER_BY_AGE);
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
        start(NEVER_BY_AGE);
        task.put(List.of(record(0, "h0", 1.0), record(1, "h0", null), record(2, "h1", 2.0)));
        assertEquals(0, deleteRequests(), "the tombstone waits for the flush interval like the writes around it");

        Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of(P0, new OffsetAndMetadata(0)));
        assertEquals(3, committed.get(P0).offset());
        assertEquals(1, deleteRequests());
        List<Map<String, Object>> rows = server.rows(TOPIC);
        assertEquals(1, rows.size(), "h0 was written, then deleted: " + rows);
        assertEquals("h1", rows.get(0).get("host"));
    }

    @Test
    void tenTombstonesAfterTheirInsertsInOnePutAreOneDeleteRequest() {
        start(NEVER_BY_AGE);
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
        start(NEVER_BY_AGE);
        task.put(List.of(record(0, "h0", 1.0), record(1, "h0", null), record(2, "h0", 3.0)));

        Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of(P0, new OffsetAndMetadata(0)));
        assertEquals(3, committed.get(P0).offset());
        List<Map<String, Object>> rows = server.rows(TOPIC);
        assertEquals(1, rows.size());
        assertEquals(3.0, rows.get(0).get("cpu"));
    }

    @Test
    void twoThousandRecordsAlternatingWritesAndTombstonesOfDistinctRowsSendFarFewerDeleteRequestsThanDeletes() {
        start("200");
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
        start("200");
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
