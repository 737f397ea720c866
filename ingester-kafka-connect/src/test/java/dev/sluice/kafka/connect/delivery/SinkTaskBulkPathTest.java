package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.StatusCode;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The sink task on the bulk path: unacknowledged batches are never committed, failed batches are retried with
 * commits behind the stored rows, and what bulk writes refuse (JSON values, type conflicts, too-large records,
 * tombstones, wrong credentials) is dead-lettered or refused at start, never dropped silently.
 */
class SinkTaskBulkPathTest extends SinkTaskFixture {
    /**
     * The bulk path commits nothing the server did not acknowledge: with the server storing bulk batches but never
     * answering, preCommit stays at 0 even though the rows are in the table.
     */
    @Test
    void theBulkPathNeverCommitsUnacknowledgedBatches() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.BATCH_ROWS, "10",
                GreptimeSinkConfig.FLUSH_TIMEOUT, "300", GreptimeSinkConfig.REQUEST_TIMEOUT, "60000");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        server.faults().bulkNeverAck(true);
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 1; i <= 30; i++) {
            recs.add(metric(P0, i, 1.0 * i));
        }
        task.put(recs);
        await("bulk rows arrive unacknowledged", () -> {
            commit(P0);
            return server.rowCount(TOPIC) > 1;
        });
        for (int i = 0; i < 5; i++) {
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
            assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1, "committed unacknowledged bulk rows: " + c);
        }
    }

    /**
     * Bulk path (README: "JSON columns are refused"): a record with a nested map can never be written on this path,
     * so it goes to the DLQ and the other records are stored and committed. The driver redelivers from every
     * rewind, as Connect does. Expected: DLQ [1], offset 3 committed, rows 0 and 2 stored. Guards against: the refusal
     * is treated as retryable: put/preCommit throw RetriableException ("GreptimeDB did not acknowledge some records
     * within the client's retries; rewinding {edge-0=1}") every time the record is redelivered, so the partition
     * never moves past it (the poison record blocks the task forever instead of going to the DLQ).
     */
    @Test
    void onTheBulkPathAJsonValueGoesToTheDlqAndTheRestIsStored() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.BATCH_ROWS, "10",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "2", GreptimeSinkConfig.RETRY_DELIVERY, "1000",
                GreptimeSinkConfig.FLUSH_TIMEOUT, "300", GreptimeSinkConfig.REDELIVERY_BACKOFF, "0");
        putAndAwaitCommitted(ctx, P0, 1, metric(P0, 0, 1.0));
        List<SinkRecord> log = List.of(metric(P0, 0, 1.0), metric(P0, 1, Map.of("nested", 1)), metric(P0, 2, 3.0));
        List<SinkRecord> pending = new ArrayList<>(log.subList(1, 3));
        int retriables = 0;
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        boolean committed = false;
        while (!committed && System.nanoTime() < until) {
            try {
                task.put(pending);
                pending = List.of();
                committed = committed(P0) == 3;
            } catch (RetriableException e) {
                retriables++;
                Long from = ctx.rewinds.remove(P0);
                if (from != null) {
                    pending = new ArrayList<>(log.subList(from.intValue(), log.size()));
                }
            }
            Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
        }
        assertTrue(committed, "offset 3 committed (RetriableExceptions seen: " + retriables + ")");
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).distinct().toList());
        assertEquals(Set.of(host(P0, 0), host(P0, 2)), storedHosts(TOPIC));
    }

    /**
     * Bulk path, a table the sink created, then a record with a new field (README: such a table "does not gain
     * columns later"). Expected (the project's rule "never a silent drop"): the field's value does not vanish
     * silently: the record is stored with it, or goes to the DLQ, or fails the task. Guards against: the record is
     * committed and stored as {host, cpu, ts}: field mem = 42.0 is gone without a DLQ entry, an error or a log
     * the test can see (GreptimeDB's bulk path ignores batch columns unknown to the table).
     */
    @Test
    void onTheBulkPathANewFieldIsNeverDroppedSilently() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.BATCH_ROWS, "10");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        Map<String, Object> v = metricValue(P0, 1, 2.0);
        v.put("mem", 42.0);
        RuntimeException failure = null;
        try {
            task.put(List.of(rec(P0, 1, v)));
            awaitCommitted(P0, 2);
        } catch (RuntimeException e) {
            failure = e;
        }
        boolean dlq = ctx.dlq.stream().anyMatch(r -> r.kafkaOffset() == 1);
        Map<String, Object> row = rowsByHost(TOPIC).get(host(P0, 1));
        boolean storedWithField = row != null && Double.valueOf(42.0).equals(row.get("mem"));
        assertTrue(failure != null || dlq || storedWithField,
                "record 1 committed but stored as " + row + " (field mem dropped), DLQ " + ctx.dlq.size());
    }

    /**
     * Bulk path with a failing bulk batch (retryable) and latency on the acknowledgements: every committed offset is
     * backed by stored rows and everything is stored in the end.
     */
    @Test
    void onTheBulkPathAFailedBatchIsRetriedAndCommitsStayBehindStoredRows() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.BATCH_ROWS, "10",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "20", GreptimeSinkConfig.FLUSH_TIMEOUT, "100");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        server.faults().failBulkBatch(2, StatusCode.StorageUnavailable, "edge: bulk busy");
        server.faults().bulkAckDelay(Duration.ofMillis(30));
        for (int round = 0; round < 10; round++) {
            List<SinkRecord> recs = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                long o = 1 + round * 10L + i;
                recs.add(metric(P0, o, 1.0 * o));
            }
            task.put(recs);
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
            if (c.containsKey(P0)) {
                checkCovered(P0, c.get(P0).offset(), "bulk preCommit");
            }
        }
        server.faults().bulkAckDelay(Duration.ZERO);
        awaitCommitted(P0, 101);
        checkCovered(P0, 101, "final");
        assertEquals(101, server.rowCount(TOPIC));
    }

    /**
     * Bulk path, a type conflict with the table (text into the Float64 column cpu): a record that can never be
     * written, so it goes to the DLQ after the refused batch is split, the others are stored, the partition
     * commits past it (README "Delivery and errors").
     */
    @Test
    void onTheBulkPathATypeConflictGoesToTheDlqAndTheRestIsStored() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.BATCH_ROWS, "10",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "2", GreptimeSinkConfig.RETRY_DELIVERY, "1000",
                GreptimeSinkConfig.FLUSH_TIMEOUT, "300", GreptimeSinkConfig.REDELIVERY_BACKOFF, "0");
        putAndAwaitCommitted(ctx, P0, 1, metric(P0, 0, 1.0));
        List<SinkRecord> log = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            log.add(metric(P0, i, i == 3 ? (Object) "text" : (Object) (1.0 * i)));
        }
        driveUntilCommitted(ctx, log, 7, Duration.ofSeconds(30));
        assertEquals(List.of(3L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).distinct().toList());
        Set<String> stored = storedHosts(TOPIC);
        for (int i = 0; i <= 6; i++) {
            assertEquals(i != 3, stored.contains(host(P0, i)), "record " + i);
        }
    }

    /**
     * Bulk path with delete.enabled: a tombstone either deletes its row (deletes travel on the regular path) or the
     * combination is refused when the task starts; it is never committed while the row silently stays.
     */
    @Test
    void onTheBulkPathATombstoneWithDeletesEnabledDeletesOrIsRefusedAtStart() throws Exception {
        try {
            start(Dlq.NONE, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.DELETES, "true");
        } catch (RuntimeException refused) {
            task = null;
            return; // refused at start: acceptable
        }
        task.put(List.of(metric(P0, 0, 1.0), metric(P0, 1, 2.0)));
        awaitCommitted(P0, 2);
        Map<String, Object> key = new HashMap<>(Map.of("host", host(P0, 0), "ts", T0));
        RuntimeException failure = null;
        try {
            task.put(List.of(new SinkRecord(TOPIC, 0, null, key, null, null, 2, T0 + 2, TimestampType.CREATE_TIME)));
            awaitCommitted(P0, 3);
        } catch (RuntimeException e) {
            failure = e;
        }
        assertTrue(failure != null || !storedHosts(TOPIC).contains(host(P0, 0)),
                "tombstone committed but row " + host(P0, 0) + " still stored");
    }

    /**
     * Bulk path, a record larger than the server's message limit (64 KiB): it can never be written, so it goes to
     * the DLQ alone and the others are stored and committed (as on the regular path), rather than being retried
     * forever.
     */
    @Test
    void onTheBulkPathARecordTooLargeGoesToTheDlq() throws Exception {
        server.close();
        server = GreptimeTestServer.builder().maxMessageBytes(64 * 1024).start();
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.RETRY_ATTEMPTS, "2",
                GreptimeSinkConfig.RETRY_DELIVERY, "1000", GreptimeSinkConfig.FLUSH_TIMEOUT, "300",
                GreptimeSinkConfig.REDELIVERY_BACKOFF, "0");
        Map<String, Object> first = metricValue(P0, 0, 0.0);
        first.put("blob", "small");
        putAndAwaitCommitted(ctx, P0, 1, rec(P0, 0, first));
        List<SinkRecord> log = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            Map<String, Object> v = metricValue(P0, i, 1.0 * i);
            v.put("blob", i == 3 ? "x".repeat(200 * 1024) : "small");
            log.add(rec(P0, i, v));
        }
        driveUntilCommitted(ctx, log, 6, Duration.ofSeconds(30));
        assertEquals(List.of(3L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).distinct().toList());
        Set<String> stored = storedHosts(TOPIC);
        for (int i = 0; i <= 5; i++) {
            assertEquals(i != 3, stored.contains(host(P0, i)), "record " + i);
        }
    }

    /** Bulk path with a wrong password: no record dead-lettered or committed (as on the regular path). */
    @Test
    void onTheBulkPathAWrongPasswordNeverDeadLettersOrCommits() throws Exception {
        server.close();
        server = GreptimeTestServer.builder().user("ingest", "right").start();
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.USERNAME, "ingest",
                GreptimeSinkConfig.PASSWORD, "wrong", GreptimeSinkConfig.RETRY_ATTEMPTS, "2",
                GreptimeSinkConfig.RETRY_DELIVERY, "500", GreptimeSinkConfig.FLUSH_TIMEOUT, "500");
        long maxCommitted = 0;
        RuntimeException failure = null;
        try {
            task.put(List.of(metric(P0, 0, 1.0), metric(P0, 1, 2.0)));
            long until = System.nanoTime() + WAIT.toNanos(); // ends at the failure
            while (System.nanoTime() < until) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                if (c.containsKey(P0)) {
                    maxCommitted = Math.max(maxCommitted, c.get(P0).offset());
                }
                task.put(List.of());
                Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList(),
                "dead-lettered with " + ctx.dlqErrors + " (failure " + failure + ")");
        assertEquals(0, maxCommitted);
        assertNotNull(failure, "the task reports the authentication failure");
    }
}
