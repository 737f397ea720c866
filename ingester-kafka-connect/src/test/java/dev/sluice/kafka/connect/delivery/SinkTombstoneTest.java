package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.StatusCode;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Tombstones as deletes: a delete and the inserts around it keep their order through retries, a tombstone's key
 * names the row (with its time index) and its table, and a tombstone for a table that does not exist is settled.
 */
class SinkTombstoneTest extends SinkTaskFixture {
    /**
     * Insert, delete (tombstone) and insert again of the same row in one put, with delete.enabled and latency:
     * "Deletes wait for the inserts before them", and the later insert must follow the delete: the row exists with
     * the last value. A second row inserted then deleted is gone.
     */
    @Test
    void insertDeleteInsertOfOneRowInOnePutEndsWithTheLastInsert() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.DELETES, "true", GreptimeSinkConfig.TS_FIELD, "at",
                GreptimeSinkConfig.IN_FLIGHT, "4");
        server.faults().latency(Duration.ofMillis(20));
        Map<String, Object> v1 = new HashMap<>(Map.of("host", "x", "at", 5_000L, "cpu", 1.0));
        Map<String, Object> v3 = new HashMap<>(Map.of("host", "x", "at", 5_000L, "cpu", 3.0));
        Map<String, Object> w = new HashMap<>(Map.of("host", "y", "at", 6_000L, "cpu", 9.0));
        Map<String, Object> keyX = new HashMap<>(Map.of("host", "x", "at", 5_000L));
        Map<String, Object> keyY = new HashMap<>(Map.of("host", "y", "at", 6_000L));
        task.put(List.of(
                rec(P0, 0, v1),
                rec(P0, 1, w),
                new SinkRecord(TOPIC, 0, null, keyX, null, null, 2, T0, TimestampType.CREATE_TIME),
                rec(P0, 3, v3),
                new SinkRecord(TOPIC, 0, null, keyY, null, null, 4, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 5);
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        assertEquals(Set.of("x"), rows.keySet(), "x re-inserted after its delete, y deleted: " + rows);
        assertEquals(3.0, rows.get("x").get("cpu"));
    }

    /**
     * delete.enabled with the time index from timestamp.field: the tombstone's key holds the tags and the field
     * (a number in timestamp.unit); that row is deleted and the others are kept.
     */
    @Test
    void aTombstoneKeyWithTheTimestampFieldDeletesThatRow() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.DELETES, "true", GreptimeSinkConfig.TS_FIELD, "at",
                GreptimeSinkConfig.TS_UNIT, "us");
        Map<String, Object> a = new HashMap<>(Map.of("host", "a", "at", 1_000_000L, "cpu", 1.0));
        Map<String, Object> b = new HashMap<>(Map.of("host", "a", "at", 2_000_000L, "cpu", 2.0));
        task.put(List.of(rec(P0, 0, a), rec(P0, 1, b)));
        awaitCommitted(P0, 2);
        Map<String, Object> key = new HashMap<>(Map.of("host", "a", "at", 1_000_000L));
        task.put(List.of(new SinkRecord(TOPIC, 0, null, key, null, null, 2, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 3);
        List<Map<String, Object>> rows = server.rows(TOPIC);
        assertEquals(1, rows.size(), rows.toString());
        assertEquals(2_000_000L, rows.get(0).get("at"));
    }

    /**
     * delete.enabled with a tombstone for a table that does not exist yet (a compacted topic replayed from its
     * start may begin with tombstones): there is nothing to delete; the tombstone is settled (skipped or
     * dead-lettered) and the partition commits past it instead of stalling.
     */
    @Test
    void aTombstoneForATableThatDoesNotExistYetIsSettled() throws Exception {
        start(Dlq.OK, GreptimeSinkConfig.DELETES, "true");
        Map<String, Object> key = new HashMap<>(Map.of("host", "gone", "ts", T0));
        task.put(List.of(new SinkRecord(TOPIC, 0, null, key, null, null, 0, T0, TimestampType.CREATE_TIME),
                metric(P0, 1, 1.0)));
        awaitCommitted(P0, 2);
        assertEquals(Set.of(host(P0, 1)), storedHosts(TOPIC));
    }

    /**
     * An insert of row X whose request fails retryably once, followed in the same put by a tombstone of X: "Deletes
     * wait for the inserts before them", including the insert's retry, so X is gone in the end.
     */
    @Test
    void aTombstoneWaitsForTheRetryOfTheInsertBeforeIt() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.DELETES, "true", GreptimeSinkConfig.TS_FIELD, "at",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "10");
        task.put(List.of(rec(P1, 0, new HashMap<>(Map.of("host", "seed", "at", 1L, "cpu", 0.0)))));
        awaitCommitted(P1, 1);
        server.faults().failNext(1, StatusCode.StorageUnavailable, "edge: insert busy");
        task.put(List.of(rec(P0, 0, new HashMap<>(Map.of("host", "x", "at", 5L, "cpu", 1.0))),
                new SinkRecord(TOPIC, 0, null, new HashMap<>(Map.of("host", "x", "at", 5L)), null, null, 1, T0,
                        TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 2);
        assertEquals(Set.of("seed"), storedHosts(TOPIC), "x deleted after its (retried) insert");
    }

    /**
     * Row X exists; a tombstone of X whose delete request fails retryably once, then (same put) a new insert of X:
     * Kafka's order says X exists at the end with the new value. Expected: the later insert is not overtaken by the
     * retried delete.
     */
    @Test
    void anInsertAfterARetriedTombstoneOfTheSameRowSurvives() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.DELETES, "true", GreptimeSinkConfig.TS_FIELD, "at",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "10", GreptimeSinkConfig.IN_FLIGHT, "4");
        task.put(List.of(rec(P0, 0, new HashMap<>(Map.of("host", "x", "at", 5L, "cpu", 1.0)))));
        awaitCommitted(P0, 1);
        server.faults().failNext(1, StatusCode.StorageUnavailable, "edge: delete busy");
        task.put(List.of(new SinkRecord(TOPIC, 0, null, new HashMap<>(Map.of("host", "x", "at", 5L)), null, null, 1,
                T0, TimestampType.CREATE_TIME),
                rec(P0, 2, new HashMap<>(Map.of("host", "x", "at", 5L, "cpu", 3.0)))));
        awaitCommitted(P0, 3);
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        assertEquals(Set.of("x"), rows.keySet(), "x re-inserted after its delete: " + rows);
        assertEquals(3.0, rows.get("x").get("cpu"));
    }

    /**
     * delete.enabled with field-based table names (table.name.field=tbl): a tombstone has no value to take the
     * table from. Its key holds tbl, the tag and ts: the row in that table is deleted, or the tombstone goes to the
     * DLQ (it cannot be routed); it is never committed as done while the row silently stays.
     */
    @Test
    void aTombstoneWithFieldRoutedTablesDeletesInTheKeysTableOrIsDeadLettered() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.DELETES, "true", GreptimeSinkConfig.TABLE_FIELD, "tbl");
        Map<String, Object> v = new HashMap<>(Map.of("tbl", "routed", "host", "a", "cpu", 1.0));
        task.put(List.of(rec(P0, 0, v)));
        awaitCommitted(P0, 1);
        Map<String, Object> key = new HashMap<>(Map.of("tbl", "routed", "host", "a", "ts", T0));
        task.put(List.of(new SinkRecord(TOPIC, 0, null, key, null, null, 1, T0 + 1, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 2);
        boolean dlq = ctx.dlq.stream().anyMatch(r -> r.kafkaOffset() == 1);
        assertTrue(dlq || server.rowCount("routed") == 0,
                "tombstone committed but row still in 'routed'; tables " + server.tables());
        assertFalse(server.tables().contains(TOPIC) && server.rowCount(TOPIC) > 0, "nothing written to the topic table");
    }
}
