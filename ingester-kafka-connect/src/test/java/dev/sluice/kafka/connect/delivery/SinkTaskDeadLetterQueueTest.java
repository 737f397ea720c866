package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Await;
import dev.sluice.write.StatusCode;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * What the sink task sends to the dead-letter queue and what it never does: a record the server or the mapping
 * refuses goes there naming its topic, partition and offset while the rest is stored; failures of the connection,
 * credentials, database, timeouts or retryable refusals never dead-letter valid records; a reporter that throws or
 * never completes holds the offset. Checked against the rows the testkit stored.
 */
class SinkTaskDeadLetterQueueTest extends SinkTaskFixture {
    /**
     * A wrong password is a configuration error of the whole task, not a property of a record. Expected: even with
     * a dead-letter queue (errors.tolerance=all) no record is dead-lettered and nothing is committed; the task
     * fails (or keeps retrying). Guards against: both records go to the DLQ and preCommit returns offset 2, with no
     * failure: a connector with a wrong (or rotated) password drains its whole topic into the DLQ and commits it.
     * The issue limits the DLQ to "a record that can never be written (bad value, type conflict, too large)".
     */
    @Test
    void aWrongPasswordNeverSendsRecordsToTheDlqNorCommitsThem() throws Exception {
        server.close();
        server = GreptimeTestServer.builder().user("ingest", "right").start();
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.USERNAME, "ingest", GreptimeSinkConfig.PASSWORD, "wrong",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "2", GreptimeSinkConfig.RETRY_DELIVERY, "500",
                GreptimeSinkConfig.FLUSH_TIMEOUT, "500");
        RuntimeException failure = null;
        long maxCommitted = 0;
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
                "dead-lettered with " + ctx.dlqErrors + "; records dead-lettered for a wrong password (committed " + maxCommitted + ", failure: " + failure + ")");
        assertEquals(0, maxCommitted, "nothing stored, nothing committed");
        assertNotNull(failure, "the task reports the authentication failure");
    }

    /**
     * The same for a greptimedb.database that does not exist (a configuration error, never a per-record one).
     * Expected: no record dead-lettered, nothing committed, the task fails. Guards against: both records dead-lettered
     * and offset 2 committed without a failure. (The server answers a missing database on insert with 1004
     * InvalidArguments, the code of a bad row, so telling them apart needs the message or a check at start; a
     * batch whose every record is refused alone is a strong hint.)
     */
    @Test
    void aMissingDatabaseNeverSendsRecordsToTheDlq() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.DATABASE, "nosuchdb", GreptimeSinkConfig.RETRY_ATTEMPTS, "2",
                GreptimeSinkConfig.RETRY_DELIVERY, "500", GreptimeSinkConfig.FLUSH_TIMEOUT, "500");
        RuntimeException failure = null;
        long maxCommitted = 0;
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
                "dead-lettered with " + ctx.dlqErrors + "; records dead-lettered for a missing database (committed " + maxCommitted + ", failure: " + failure
                        + ")");
        assertEquals(0, maxCommitted, "nothing stored, nothing committed");
        assertNotNull(failure, "the task reports the missing database");
    }

    /**
     * A record larger than the server's message limit (here 64 KiB, GreptimeDB's grpc.max_recv_message_size) can
     * never be written: with a DLQ it goes there alone, the rest of its batch is stored, and the partition
     * commits past it.
     */
    @Test
    void aRecordTooLargeForTheServerGoesToTheDlqAndTheRestIsStored() throws Exception {
        server.close();
        server = GreptimeTestServer.builder().maxMessageBytes(64 * 1024).start();
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.RETRY_ATTEMPTS, "3");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            Map<String, Object> v = metricValue(P0, i, 1.0 * i);
            v.put("blob", i == 4 ? "x".repeat(200 * 1024) : "small");
            batch.add(rec(P0, i, v));
        }
        task.put(batch);
        awaitCommitted(P0, 11);
        assertEquals(List.of(4L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        Set<String> stored = storedHosts(TOPIC);
        for (int i = 0; i <= 10; i++) {
            assertEquals(i != 4, stored.contains(host(P0, i)), "record " + i);
        }
    }

    /** Without a DLQ the too-large record fails the task (not retriable), naming topic, partition and offset. */
    @Test
    void aRecordTooLargeWithoutDlqFailsTheTaskNamingIt() throws Exception {
        server.close();
        server = GreptimeTestServer.builder().maxMessageBytes(64 * 1024).start();
        start(Dlq.NONE, GreptimeSinkConfig.RETRY_ATTEMPTS, "3");
        Map<String, Object> v = metricValue(P1, 7, 1.0);
        v.put("blob", "x".repeat(200 * 1024));
        ConnectException failure = null;
        try {
            task.put(List.of(rec(P1, 7, v)));
            long until = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < until) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P1);
                assertTrue(!c.containsKey(P1) || c.get(P1).offset() <= 7, "committed past the refused record: " + c);
                task.put(List.of());
                Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
            }
        } catch (ConnectException e) {
            failure = e;
        }
        assertNotNull(failure, "the task fails");
        assertFalse(failure instanceof RetriableException, "a too-large record is not retriable: " + failure);
        for (String part : List.of("topic=" + TOPIC, "partition=1", "offset=7")) {
            assertTrue(failure.getMessage().contains(part), "message names " + part + ": " + failure.getMessage());
        }
    }

    /**
     * A dead-letter reporter that throws (the worker's DLQ producer fenced or closed) when handed an unmappable
     * record: the record is neither stored nor dead-lettered, so the offset must never pass it and the task fails
     * with a non-retriable error.
     */
    @Test
    void aDlqReporterThatThrowsFailsTheTaskAndNeverCommitsPastThePoison() throws Exception {
        start(Dlq.THROWS);
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        RuntimeException failure = null;
        try {
            task.put(List.of(rec(P0, 1, "not a struct or map"), metric(P0, 2, 2.0)));
            long until = System.nanoTime() + WAIT.toNanos(); // ends at the failure
            while (System.nanoTime() < until) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1, "offset passed the poison: " + c);
                task.put(List.of());
                Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        assertNotNull(failure, "a record neither stored nor dead-lettered fails the task");
        assertFalse(failure instanceof RetriableException, failure.toString());
    }

    /**
     * A dead-letter reporter whose future never completes (the DLQ producer hangs): the poison record is not
     * settled, so preCommit stays at it, and stop() still ends in bounded time.
     */
    @Test
    void aDlqReportThatNeverCompletesHoldsTheOffsetAndStopIsStillBounded() throws Exception {
        start(Dlq.HANGS, GreptimeSinkConfig.FLUSH_TIMEOUT, "300");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        try {
            task.put(List.of(rec(P0, 1, 42), metric(P0, 2, 2.0)));
            for (int i = 0; i < 20; i++) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1, "offset passed the unreported poison: " + c);
            }
        } catch (RuntimeException acceptable) {
            // failing the task is fine too
        }
        // the report never completes: stop returning at all proves it does not wait for it
        Await.returns("stop with a dead-letter report that never completes", () -> {
            try {
                task.stop();
            } catch (RuntimeException acceptable) {
                // stop may report what was left
            }
        });
        task = null;
    }

    /**
     * Values that are neither a Struct nor a Map (a string, a number), and a Map whose keys are not strings, cannot
     * be mapped: each goes to the DLQ at once with a message naming its offset, and the others are stored.
     */
    @Test
    void unmappableValuesGoToTheDlqNamingTheirOffsets() throws Exception {
        Ctx ctx = start(Dlq.OK);
        Map<Object, Object> intKeys = new HashMap<>();
        intKeys.put(1, "a");
        intKeys.put("host", "h");
        task.put(List.of(metric(P0, 0, 1.0), rec(P0, 1, "text"), rec(P0, 2, 12L), rec(P0, 3, intKeys),
                rec(P0, 4, List.of(1, 2)), metric(P0, 5, 2.0)));
        awaitCommitted(P0, 6);
        List<Long> dlq = ctx.dlq.stream().map(SinkRecord::kafkaOffset).sorted().toList();
        assertEquals(6, dlq.size() + server.rowCount(TOPIC), "every record stored or dead-lettered once");
        assertTrue(dlq.containsAll(List.of(1L, 2L, 4L)), "not Struct/Map values dead-lettered: " + dlq);
        for (Throwable t : ctx.dlqErrors) {
            assertTrue(t.getMessage() != null && t.getMessage().contains("offset="), "error names the record: " + t);
        }
        assertTrue(storedHosts(TOPIC).containsAll(List.of(host(P0, 0), host(P0, 5))));
    }

    /**
     * A column named like GreptimeDB's reserved internal columns ({@code __op_type}, {@code __sequence},
     * {@code __primary_key}) can never be written: the record goes to the DLQ and the rest of the
     * partition is stored and committed.
     */
    @Test
    void aReservedColumnNameGoesToTheDlqAndTheRestIsStored() throws Exception {
        Ctx ctx = start(Dlq.OK);
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        Map<String, Object> bad = metricValue(P0, 1, 2.0);
        bad.put("__op_type", 1L);
        task.put(List.of(rec(P0, 1, bad), metric(P0, 2, 3.0)));
        awaitCommitted(P0, 3);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(Set.of(host(P0, 0), host(P0, 2)), storedHosts(TOPIC));
    }

    /**
     * A batch bigger than the server's message limit (64 KiB) made of small records (2 KiB each, 100 of them): no
     * record is too large on its own, so all are stored (the batch split), none goes to the DLQ.
     */
    @Test
    void aBatchOverTheServerMessageLimitOfSmallRecordsIsSplitNotDeadLettered() throws Exception {
        server.close();
        server = GreptimeTestServer.builder().maxMessageBytes(64 * 1024).start();
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.BATCH_ROWS, "1000", GreptimeSinkConfig.FLUSH_INTERVAL, "500");
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Map<String, Object> v = metricValue(P0, i, 1.0 * i);
            v.put("blob", i + "z".repeat(2048));
            recs.add(rec(P0, i, v));
        }
        driveUntilCommitted(ctx, recs, 100, WAIT);
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList(), "no small record dead-lettered");
        assertEquals(100, server.rowCount(TOPIC));
    }

    /**
     * Requests outliving greptimedb.request.timeout.ms (server latency 400 ms, timeout 100 ms) fail with
     * DEADLINE_EXCEEDED: a transient condition, never a reason to dead-letter valid records. Once the latency is
     * gone, redelivery stores everything and the DLQ stays empty.
     */
    @Test
    void requestTimeoutsNeverDeadLetterValidRecords() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.REQUEST_TIMEOUT, "100", GreptimeSinkConfig.RETRY_ATTEMPTS, "2",
                GreptimeSinkConfig.RETRY_DELIVERY, "1000", GreptimeSinkConfig.FLUSH_TIMEOUT, "300",
                GreptimeSinkConfig.REDELIVERY_BACKOFF, "0");
        putAndAwaitCommitted(ctx, P1, 1, metric(P1, 0, 0.0));
        server.faults().latency(Duration.ofMillis(400));
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            recs.add(metric(P0, i, 1.0 * i));
        }
        List<SinkRecord> pending = new ArrayList<>(recs);
        long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        while (System.nanoTime() < until) {
            try {
                task.put(pending);
                pending = List.of();
                commit(P0);
            } catch (RetriableException e) {
                Long from = ctx.rewinds.remove(P0);
                if (from != null) {
                    pending = new ArrayList<>(recs.subList(from.intValue(), recs.size()));
                }
            }
            Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
        }
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList(),
                "timed-out requests dead-lettered valid records");
        server.faults().latency(Duration.ZERO);
        driveUntilCommitted(ctx, recs, pending, 10, WAIT, round -> { });
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(11, server.rowCount(TOPIC));
    }

    /**
     * Isolating poison records while the server also fails every 2nd request retryably: the retryable failures met
     * while splitting must not make good records look refused. Exactly the two poison records go to the DLQ, all
     * others are stored, every commit is backed by stored or dead-lettered records.
     */
    @Test
    void isolatingPoisonUnderRetryableFailuresDeadLettersOnlyThePoison() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.RETRY_ATTEMPTS, "100", GreptimeSinkConfig.BATCH_ROWS, "40",
                GreptimeSinkConfig.FLUSH_INTERVAL, "50");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        server.faults().failEvery(2, StatusCode.StorageUnavailable, "edge: flaky");
        List<SinkRecord> log = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            log.add(metric(P0, i, i == 7 || i == 31 ? (Object) ("bad" + i) : (Object) (1.0 * i)));
        }
        driveUntilCommitted(ctx, log, 41, WAIT);
        assertEquals(List.of(7L, 31L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).distinct().sorted().toList());
        Set<String> stored = storedHosts(TOPIC);
        for (int i = 0; i <= 40; i++) {
            assertEquals(i != 7 && i != 31, stored.contains(host(P0, i)), "record " + i);
        }
    }

    /**
     * Everything at once over eight partitions of two topics: poison records (every 23rd offset, text into the
     * Float64 column), bursts of retryable failures outliving retry.max.attempts=2 (RetriableException with
     * rewinds), and rebalances (preCommit, close, open, redelivery from the committed offset). Every rewind and
     * every committed offset is backed by records stored or dead-lettered; in the end exactly the poison records
     * are in the DLQ and all others are stored.
     */
    @Test
    void poisonRewindsAndRebalancesTogetherKeepEveryCommitBackedAndDeadLetterOnlyThePoison() throws Exception {
        List<TopicPartition> all = new ArrayList<>();
        for (String t : List.of("xa", "xb")) {
            for (int p = 0; p < 4; p++) {
                all.add(new TopicPartition(t, p));
            }
        }
        Ctx ctx = startOn(all, Dlq.OK, GreptimeSinkConfig.BATCH_ROWS, "11", GreptimeSinkConfig.IN_FLIGHT, "3",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "2", GreptimeSinkConfig.RETRY_DELIVERY, "2000",
                GreptimeSinkConfig.FLUSH_TIMEOUT, "200", GreptimeSinkConfig.REDELIVERY_BACKOFF, "0",
                GreptimeSinkConfig.COLUMN_TYPES, "cpu:Float64");
        final int perPartition = 70;
        Map<TopicPartition, Long> position = new HashMap<>();
        Map<TopicPartition, Long> committedOffsets = new HashMap<>();
        for (TopicPartition tp : all) {
            position.put(tp, 0L);
        }
        Random rnd = new Random(2323);
        List<SinkRecord> retry = null;
        int retriables = 0;
        int rebalances = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
        boolean done = false;
        int round = 0;
        while (!done) {
            assertTrue(System.nanoTime() < deadline, "not all committed in time: " + committedOffsets);
            round++;
            if (round % 12 == 0 && round < 150) {
                server.faults().failNext(5, StatusCode.StorageUnavailable, "edge: burst");
            }
            List<SinkRecord> batch;
            if (retry != null) {
                batch = retry;
            } else {
                batch = new ArrayList<>();
                for (int i = 0; i < rnd.nextInt(30); i++) {
                    TopicPartition tp = all.get(rnd.nextInt(all.size()));
                    long o = position.get(tp);
                    if (o < perPartition) {
                        batch.add(metric(tp, o, o % 23 == 5 ? (Object) "poison" : (Object) (o * 0.5)));
                        position.put(tp, o + 1);
                    }
                }
            }
            try {
                task.put(new ArrayList<>(batch));
                retry = null;
                if (round % 2 == 0) {
                    Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
                    for (TopicPartition tp : all) {
                        current.put(tp, new OffsetAndMetadata(position.get(tp)));
                    }
                    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : task.preCommit(current).entrySet()) {
                        checkCovered(e.getKey(), e.getValue().offset(), "preCommit", ctx);
                        committedOffsets.put(e.getKey(), e.getValue().offset());
                    }
                }
            } catch (RetriableException e) {
                retriables++;
                if (retry == null) {
                    retry = batch;
                }
                for (Map.Entry<TopicPartition, Long> rw : ctx.rewinds.entrySet()) {
                    checkCovered(rw.getKey(), rw.getValue(), "rewind", ctx);
                    position.put(rw.getKey(), Math.min(position.get(rw.getKey()), rw.getValue()));
                }
                ctx.rewinds.clear();
            }
            if (retry == null && round % 13 == 0 && round < 150) {
                List<TopicPartition> revoke = new ArrayList<>(all);
                Collections.shuffle(revoke, rnd);
                revoke = revoke.subList(0, 3);
                Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
                for (TopicPartition tp : revoke) {
                    current.put(tp, new OffsetAndMetadata(position.get(tp)));
                }
                try {
                    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : task.preCommit(current).entrySet()) {
                        checkCovered(e.getKey(), e.getValue().offset(), "preCommit before close", ctx);
                        committedOffsets.put(e.getKey(), e.getValue().offset());
                    }
                    task.close(revoke);
                } catch (RetriableException acceptable) {
                    // the next owner redelivers from the committed offset
                }
                ctx.assignment.removeAll(revoke);
                ctx.rewinds.keySet().removeAll(revoke);
                for (TopicPartition tp : revoke) {
                    position.put(tp, committedOffsets.getOrDefault(tp, 0L));
                }
                ctx.assignment.addAll(revoke);
                task.open(revoke);
                rebalances++;
            }
            done = retry == null;
            for (TopicPartition tp : all) {
                done &= committedOffsets.getOrDefault(tp, 0L) == perPartition;
            }
        }
        assertTrue(retriables > 0 && rebalances > 3, "retriables " + retriables + ", rebalances " + rebalances);
        Set<String> dead = new HashSet<>();
        for (SinkRecord r : List.copyOf(ctx.dlq)) {
            dead.add(host(new TopicPartition(r.topic(), r.kafkaPartition()), r.kafkaOffset()));
        }
        for (TopicPartition tp : all) {
            Set<String> stored = storedHosts(tp.topic());
            for (long o = 0; o < perPartition; o++) {
                boolean poison = o % 23 == 5;
                assertEquals(poison, dead.contains(host(tp, o)), "DLQ holds " + host(tp, o) + ": " + poison);
                assertEquals(!poison, stored.contains(host(tp, o)), "stored " + host(tp, o) + ": " + !poison);
            }
        }
    }

    /**
     * A configuration mistake in table.hints (ttl=notaduration, which GreptimeDB refuses on every write that
     * creates the table): like a wrong password, this is not a property of any record. Expected: the connector's
     * validation refuses it, or the task fails; no record is dead-lettered and committed. Guards against: validation
     * accepts it, and both records go to the DLQ with "GreptimeDB refused the row: Failed to parse table option,
     * key: ttl, value: notaduration (code 1004)" and offset 2 is committed, without any failure: a typo in a hint
     * drains the topic into the DLQ.
     */
    @Test
    void anInvalidTableHintNeverDeadLettersEveryRecord() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.HINTS, "ttl=notaduration", GreptimeSinkConfig.RETRY_ATTEMPTS, "2",
                GreptimeSinkConfig.RETRY_DELIVERY, "500", GreptimeSinkConfig.FLUSH_TIMEOUT, "500");
        RuntimeException failure = null;
        long maxCommitted = 0;
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
        boolean stored = server.tables().contains(TOPIC) && server.rowCount(TOPIC) == 2;
        assertTrue(stored || ctx.dlq.isEmpty(), "dead-lettered with " + ctx.dlqErrors + " (committed " + maxCommitted
                + ", failure " + failure + ")");
        assertTrue(stored || maxCommitted == 0, "committed " + maxCommitted + " with nothing stored");
    }

    /**
     * close(partitions) while a dead-letter report of that partition never completes: close is bounded (about
     * flush.timeout.ms, here 300 ms), and the partition's offset was never reported past the unreported record.
     */
    @Test
    void closeWithADlqReportThatNeverCompletesIsBounded() throws Exception {
        start(Dlq.HANGS, GreptimeSinkConfig.FLUSH_TIMEOUT, "300");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        try {
            task.put(List.of(rec(P0, 1, "unmappable"), metric(P0, 2, 2.0)));
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
            assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1, "offset passed the unreported record: " + c);
        } catch (RuntimeException acceptable) {
            // failing the task is fine too
        }
        // the report never completes: close returning at all proves it does not wait for it
        Await.returns("close(partitions) with a dead-letter report that never completes", () -> {
            try {
                task.close(List.of(P0));
            } catch (RuntimeException acceptable) {
                // close may report the unsettled record
            }
        });
    }
}
