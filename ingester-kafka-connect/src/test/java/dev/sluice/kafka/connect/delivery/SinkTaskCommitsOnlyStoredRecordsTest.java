package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.StatusCode;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import dev.sluice.testkit.Faults;
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
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;

/**
 * The sink task's at-least-once promise: an offset is committed only once every record before it is stored or
 * dead-lettered, through retries, rebalances, rewinds, restarts of the server and several topics and partitions, and
 * a retried batch never overwrites a later record of the same row. Driven as Connect's worker drives the task (a fake
 * {@code SinkTaskContext}) against the testkit, and checked against the rows the testkit stored.
 */
class SinkTaskCommitsOnlyStoredRecordsTest extends SinkTaskFixture {
    /**
     * A Connect-like worker over two topics of four partitions each (the same partition numbers in both topics),
     * with every 4th request failing retryably, latency, random put sizes and random rebalances (preCommit of the
     * revoked partitions, close, then open again and redelivery from the committed offset, as WorkerSinkTask
     * does). After every preCommit, each returned offset is checked against the testkit's rows: every record
     * before it in its own topic-partition is stored, and no offset is ahead of what was delivered. In the end
     * everything is stored and committed.
     */
    @Test
    void underRetriesAndRebalancesEveryCommittedOffsetOfTwoTopicsIsBackedByStoredRows() throws Exception {
        List<TopicPartition> all = new ArrayList<>();
        for (String t : List.of("ta", "tb")) {
            for (int p = 0; p < 4; p++) {
                all.add(new TopicPartition(t, p));
            }
        }
        Ctx ctx = startOn(all, Dlq.NONE, GreptimeSinkConfig.BATCH_ROWS, "13", GreptimeSinkConfig.IN_FLIGHT, "3",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "100", GreptimeSinkConfig.FLUSH_TIMEOUT, "100");
        server.faults().failEvery(4, StatusCode.StorageUnavailable, "edge: busy");
        server.faults().latency(Duration.ofMillis(3));
        final int perPartition = 120;
        Map<TopicPartition, Long> position = new HashMap<>();
        Map<TopicPartition, Long> committedOffsets = new HashMap<>();
        for (TopicPartition tp : all) {
            position.put(tp, 0L);
        }
        Set<TopicPartition> assigned = new HashSet<>(all);
        Random rnd = new Random(15);
        List<SinkRecord> retry = null;
        int rebalances = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        boolean done = false;
        int round = 0;
        while (!done) {
            assertTrue(System.nanoTime() < deadline, "not all committed in time: " + committedOffsets);
            round++;
            if (round == 150) {
                server.faults().reset();
            }
            List<SinkRecord> batch;
            if (retry != null) {
                batch = retry;
            } else {
                batch = new ArrayList<>();
                int n = rnd.nextInt(25);
                List<TopicPartition> order = new ArrayList<>(assigned);
                for (int i = 0; i < n && !order.isEmpty(); i++) {
                    TopicPartition tp = order.get(rnd.nextInt(order.size()));
                    long o = position.get(tp);
                    if (o < perPartition) {
                        batch.add(metric(tp, o, o * 0.5));
                        position.put(tp, o + 1);
                    }
                }
            }
            try {
                task.put(new ArrayList<>(batch));
                retry = null;
            } catch (RetriableException e) {
                retry = batch;
                for (Map.Entry<TopicPartition, Long> rw : ctx.rewinds.entrySet()) {
                    checkCovered(rw.getKey(), rw.getValue(), "rewind");
                    position.put(rw.getKey(), Math.min(position.get(rw.getKey()), rw.getValue()));
                }
                ctx.rewinds.clear();
            }
            if (round % 3 == 0) {
                Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
                for (TopicPartition tp : assigned) {
                    current.put(tp, new OffsetAndMetadata(position.get(tp)));
                }
                Map<TopicPartition, OffsetAndMetadata> c = task.preCommit(current);
                for (Map.Entry<TopicPartition, OffsetAndMetadata> e : c.entrySet()) {
                    assertTrue(assigned.contains(e.getKey()), "preCommit reported an unassigned " + e.getKey());
                    checkCovered(e.getKey(), e.getValue().offset(), "preCommit");
                    committedOffsets.put(e.getKey(), e.getValue().offset());
                }
            }
            if (retry == null && round % 17 == 0 && round < 150) {
                // rebalance: revoke two partitions (commit first, then close), give them back
                List<TopicPartition> revoke = new ArrayList<>(assigned);
                Collections.shuffle(revoke, rnd);
                revoke = revoke.subList(0, 2);
                Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
                for (TopicPartition tp : revoke) {
                    current.put(tp, new OffsetAndMetadata(position.get(tp)));
                }
                Map<TopicPartition, OffsetAndMetadata> c = task.preCommit(current);
                for (Map.Entry<TopicPartition, OffsetAndMetadata> e : c.entrySet()) {
                    checkCovered(e.getKey(), e.getValue().offset(), "preCommit before close");
                    committedOffsets.put(e.getKey(), e.getValue().offset());
                }
                try {
                    task.close(revoke);
                } catch (RetriableException acceptable) {
                    // close may report writes it could not finish; the next owner redelivers them
                }
                assigned.removeAll(revoke);
                ctx.assignment.removeAll(revoke);
                ctx.rewinds.keySet().removeAll(revoke);
                for (TopicPartition tp : revoke) {
                    position.put(tp, committedOffsets.getOrDefault(tp, 0L));
                }
                assigned.addAll(revoke);
                ctx.assignment.addAll(revoke);
                task.open(revoke);
                rebalances++;
            }
            done = retry == null;
            for (TopicPartition tp : all) {
                done &= committedOffsets.getOrDefault(tp, 0L) == perPartition;
            }
        }
        assertTrue(rebalances > 3, "rebalances happened: " + rebalances);
        assertEquals(4L * perPartition, server.rowCount("ta"));
        assertEquals(4L * perPartition, server.rowCount("tb"));
    }

    /**
     * A partition opened without any record put yet (fresh assignment, consumer at committed offset 500): preCommit
     * must not hand back an offset below the consumer's position for it, which would move the group's committed
     * offset backwards and replay the partition at the next rebalance.
     */
    @Test
    void aFreshlyAssignedPartitionWithoutRecordsIsNotCommittedBackwards() throws Exception {
        start(Dlq.NONE);
        Map<TopicPartition, OffsetAndMetadata> current = Map.of(P0, new OffsetAndMetadata(500),
                P1, new OffsetAndMetadata(77));
        Map<TopicPartition, OffsetAndMetadata> c = task.preCommit(new HashMap<>(current));
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : c.entrySet()) {
            assertTrue(e.getValue().offset() >= current.get(e.getKey()).offset(),
                    "preCommit moved " + e.getKey() + " back to " + e.getValue().offset() + ": " + c);
        }
        task.put(List.of(metric(P0, 500, 1.0), metric(P0, 501, 2.0)));
        Map<TopicPartition, OffsetAndMetadata> c2 = task.preCommit(new HashMap<>(Map.of(P0,
                new OffsetAndMetadata(502), P1, new OffsetAndMetadata(77))));
        assertEquals(502, c2.get(P0).offset());
        assertTrue(!c2.containsKey(P1) || c2.get(P1).offset() >= 77, "P1 not moved back: " + c2);
    }

    /**
     * Records of a partition put after close(partition) (late records of a revoked partition): preCommit does not
     * report that partition; once it is opened again and Connect redelivers from the committed offset, everything
     * is stored and committed.
     */
    @Test
    void lateRecordsOfARevokedPartitionAreNotCommittedAndReopeningRedeliversThem() throws Exception {
        Ctx ctx = start(Dlq.NONE);
        task.put(List.of(metric(P0, 0, 1.0), metric(P1, 0, 1.0)));
        awaitCommitted(P0, 1);
        task.close(List.of(P0));
        ctx.assignment.remove(P0);
        try {
            task.put(List.of(metric(P0, 1, 2.0), metric(P1, 1, 2.0)));
        } catch (RuntimeException acceptable) {
            // a sink may refuse records of a partition it does not own
        }
        Map<TopicPartition, OffsetAndMetadata> c = task.preCommit(new HashMap<>(Map.of(P1, new OffsetAndMetadata(2))));
        assertFalse(c.containsKey(P0), "a revoked partition is never reported: " + c);
        ctx.assignment.add(P0);
        task.open(List.of(P0));
        task.put(List.of(metric(P0, 1, 2.0), metric(P0, 2, 3.0)));
        awaitCommitted(P0, 3);
        awaitCommitted(P1, 2);
        assertTrue(storedHosts(TOPIC).containsAll(List.of(host(P0, 1), host(P0, 2), host(P1, 1))));
    }

    /**
     * Two records of one row (same tag and time index) in one partition, each sent as its own batch
     * (batch.max.rows=1), the first request failing retryably once. Expected: on an ordinary table the last write
     * wins (the README's reason why redelivery is harmless), so the row ends with the later record's value, as
     * Kafka's per-partition order says. Observed: cpu = 1.0: the first batch is retried after the second batch
     * (in flight at the same time, max.in.flight.requests=4) was stored, so the older record overwrites the newer
     * one and both offsets are committed. Any retryable failure (overload, a dropped connection) can reorder
     * updates of one row this way.
     */
    @Test
    void aRetriedEarlierBatchDoesNotOverwriteALaterRecordOfTheSameRow() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.BATCH_ROWS, "1", GreptimeSinkConfig.IN_FLIGHT, "4",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "10");
        // create the table first, so the faults below hit the data writes
        task.put(List.of(metric(P1, 0, 0.0)));
        awaitCommitted(P1, 1);
        server.faults().failNext(1, StatusCode.StorageUnavailable, "edge: first write busy");
        Map<String, Object> a = new HashMap<>(Map.of("host", "same", "cpu", 1.0));
        Map<String, Object> b = new HashMap<>(Map.of("host", "same", "cpu", 2.0));
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, null, a, 0, T0, TimestampType.CREATE_TIME),
                new SinkRecord(TOPIC, 0, null, null, null, b, 1, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 2);
        assertEquals(2.0, rowsByHost(TOPIC).get("same").get("cpu"), "the later record of the row wins");
    }

    /**
     * The RetriableException path across eight partitions of two topics: bursts of consecutive retryable failures
     * outlive retry.max.attempts=2, so put/preCommit throw RetriableException with rewinds; the driver retries the
     * failed put and then re-reads every rewound partition from its rewind offset (WorkerSinkTask's behaviour).
     * Every rewind offset and every committed offset is backed by stored rows; in the end all records are stored.
     */
    @Test
    void burstsOfFailuresOutlivingRetriesRewindEachPartitionToAStoredPrefix() throws Exception {
        List<TopicPartition> all = new ArrayList<>();
        for (String t : List.of("ra", "rb")) {
            for (int p = 0; p < 4; p++) {
                all.add(new TopicPartition(t, p));
            }
        }
        Ctx ctx = startOn(all, Dlq.NONE, GreptimeSinkConfig.BATCH_ROWS, "9", GreptimeSinkConfig.IN_FLIGHT, "2",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "2", GreptimeSinkConfig.RETRY_DELIVERY, "2000",
                GreptimeSinkConfig.FLUSH_TIMEOUT, "200", GreptimeSinkConfig.REDELIVERY_BACKOFF, "0");
        final int perPartition = 80;
        Map<TopicPartition, Long> position = new HashMap<>();
        Map<TopicPartition, Long> committedOffsets = new HashMap<>();
        for (TopicPartition tp : all) {
            position.put(tp, 0L);
        }
        Random rnd = new Random(1515);
        List<SinkRecord> retry = null;
        int retriables = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
        boolean done = false;
        int round = 0;
        while (!done) {
            assertTrue(System.nanoTime() < deadline, "not all committed in time: " + committedOffsets);
            round++;
            if (round % 10 == 0 && round < 120) {
                server.faults().failNext(6, StatusCode.StorageUnavailable, "edge: burst");
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
                        batch.add(metric(tp, o, o * 0.5));
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
                        checkCovered(e.getKey(), e.getValue().offset(), "preCommit");
                        assertTrue(e.getValue().offset() <= position.get(e.getKey()), "ahead of delivery: " + e);
                        committedOffsets.put(e.getKey(), e.getValue().offset());
                    }
                }
            } catch (RetriableException e) {
                retriables++;
                if (retry == null) {
                    retry = batch;
                }
                for (Map.Entry<TopicPartition, Long> rw : ctx.rewinds.entrySet()) {
                    checkCovered(rw.getKey(), rw.getValue(), "rewind");
                    position.put(rw.getKey(), Math.min(position.get(rw.getKey()), rw.getValue()));
                }
                ctx.rewinds.clear();
            }
            done = retry == null;
            for (TopicPartition tp : all) {
                done &= committedOffsets.getOrDefault(tp, 0L) == perPartition;
            }
        }
        assertTrue(retriables > 0, "the bursts outlived the retries at least once");
        assertEquals(4L * perPartition, server.rowCount("ra"));
        assertEquals(4L * perPartition, server.rowCount("rb"));
    }

    /**
     * README: after a retryable failure outlives the retries, "Connect pauses redelivery.backoff.ms and delivers
     * again": the task asks its context for that pause (SinkTaskContext.timeout) before throwing
     * RetriableException.
     */
    @Test
    void aRetriableExceptionAsksConnectToPauseRedeliveryBackoff() throws Exception {
        Ctx ctx = start(Dlq.NONE, GreptimeSinkConfig.RETRY_ATTEMPTS, "1", GreptimeSinkConfig.RETRY_DELIVERY, "300",
                GreptimeSinkConfig.FLUSH_TIMEOUT, "300", GreptimeSinkConfig.REDELIVERY_BACKOFF, "1234");
        server.faults().failNext(1_000, StatusCode.StorageUnavailable, "edge: down");
        RetriableException seen = null;
        try {
            task.put(List.of(metric(P0, 0, 1.0)));
            long until = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < until) {
                commit(P0);
                task.put(List.of());
                Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
            }
        } catch (RetriableException e) {
            seen = e;
        }
        assertNotNull(seen, "the outage surfaced as RetriableException");
        assertTrue(ctx.timeouts.contains(1234L), "context.timeout(redelivery.backoff.ms) requested: " + ctx.timeouts);
    }

    /**
     * greptimedb.endpoints with a dead endpoint first and the testkit second: writes go to the healthy one
     * (README: "round-robin over the healthy ones"), so every record is stored and committed.
     */
    @Test
    void aDeadEndpointInTheListDoesNotLoseOrStallRecords() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.ENDPOINTS, "127.0.0.1:1," + server.endpoint(),
                GreptimeSinkConfig.BATCH_ROWS, "5", GreptimeSinkConfig.RETRY_ATTEMPTS, "10");
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            recs.add(metric(P0, i, 1.0 * i));
        }
        task.put(recs);
        awaitCommitted(P0, 50);
        assertEquals(50, server.rowCount(TOPIC));
    }

    @Test
    void aServerRestartWithBatchesInFlightLosesNothingAndNeverCommitsAhead() throws Exception {
        Ctx ctx = start(Dlq.NONE, GreptimeSinkConfig.BATCH_ROWS, "5", GreptimeSinkConfig.RETRY_ATTEMPTS, "50",
                GreptimeSinkConfig.FLUSH_TIMEOUT, "100", GreptimeSinkConfig.REDELIVERY_BACKOFF, "0");
        server.faults().latency(Duration.ofMillis(20));
        List<SinkRecord> log = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            log.add(metric(P0, i, 1.0 * i));
        }
        driveUntilCommitted(ctx, log, log, 120, WAIT, round -> {
            if (round == 1 || round == 3) {
                restartServer();
            }
            if (round == 5) {
                server.faults().latency(Duration.ZERO);
            }
        });
        assertEquals(120, server.rowCount(TOPIC));
    }

    /**
     * Records settled at once (a tombstone skipped, an unmappable record dead-lettered) behind a record still
     * unacknowledged (the server hanging): the commit must not jump over the unacknowledged record because the
     * later ones are settled; once the server answers, everything is committed.
     */
    @Test
    void recordsSettledAtOnceNeverLetTheCommitPassAnEarlierUnacknowledgedOne() throws Exception {
        // request timeout 2 s: a request held by the hanging testkit is only retried once it times out
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.FLUSH_TIMEOUT, "200", GreptimeSinkConfig.REQUEST_TIMEOUT, "2000");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        server.faults().neverRespond(true);
        task.put(List.of(metric(P0, 1, 2.0), rec(P0, 2, null), rec(P0, 3, "unmappable"), rec(P0, 4, null)));
        for (int i = 0; i < 5; i++) {
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
            assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1,
                    "commit passed unacknowledged record 1: " + c + " stored " + storedHosts(TOPIC));
        }
        server.faults().neverRespond(false);
        awaitCommitted(P0, 5);
        assertTrue(storedHosts(TOPIC).contains(host(P0, 1)));
        assertEquals(List.of(3L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
    }

    /**
     * The same across the rebalance path: close(all partitions) with everything acknowledged, then stop(): nothing
     * left pending, every record stored, and preCommit after reopening reports from the new generation only.
     */
    @Test
    void closingEveryPartitionThenReopeningStartsACleanGeneration() throws Exception {
        Ctx ctx = start(Dlq.NONE);
        task.put(List.of(metric(P0, 0, 1.0), metric(P1, 0, 1.0), metric(P0, 1, 2.0)));
        task.close(List.of(P0, P1));
        ctx.assignment.clear();
        assertEquals(Set.of(host(P0, 0), host(P1, 0), host(P0, 1)), storedHosts(TOPIC), "close flushed");
        assertEquals(Map.of(), task.preCommit(new HashMap<>()), "nothing assigned, nothing reported");
        ctx.assignment.add(P1);
        task.open(List.of(P1));
        task.put(List.of(metric(P1, 1, 2.0)));
        Map<TopicPartition, OffsetAndMetadata> c = task.preCommit(new HashMap<>(Map.of(P1, new OffsetAndMetadata(2))));
        assertEquals(2, c.get(P1).offset());
        assertFalse(c.containsKey(P0), "a partition closed for good is not reported: " + c);
    }

    /**
     * Two topics renamed into one table (regex), with the same partition numbers and offsets, a poison record in
     * one of them arriving while a write to the table is unanswered (so it is redelivered): each topic-partition
     * commits on its own records only, the poison goes to the DLQ with its own topic, and every commit is backed by
     * that topic's stored rows.
     */
    @Test
    void twoTopicsIntoOneTableKeepTheirOffsetsApart() throws Exception {
        TopicPartition a = new TopicPartition("a.cpu", 0);
        TopicPartition b = new TopicPartition("b.cpu", 0);
        Ctx ctx = startOn(List.of(a, b), Dlq.OK, GreptimeSinkConfig.TABLE_REGEX, "(a|b)\\.(.*)",
                GreptimeSinkConfig.TABLE_REPLACEMENT, "$2", GreptimeSinkConfig.FLUSH_TIMEOUT, "200");
        List<SinkRecord> first = List.of(metric(a, 0, 1.0), metric(b, 0, 1.0));
        List<SinkRecord> log = new ArrayList<>(first);
        putUntilCommitted(ctx, log, first, Map.of(a, 1L, b, 1L), () -> { });
        // A write to the table is held unanswered when the poison row (cpu as a string) arrives: the sink cannot
        // tell yet whether the column's type stands, so it asks Connect to redeliver from that row; the driver
        // releases the held write and redelivers, as the worker would.
        server.faults().hold(Faults.HoldPoint.BEFORE_STORE);
        List<SinkRecord> second = List.of(metric(a, 1, 2.0));
        log.addAll(second);
        task.put(second);
        server.faults().awaitHeld(1, WAIT);
        List<SinkRecord> third = List.of(metric(b, 1, "poison"), metric(b, 2, 3.0), metric(a, 2, 3.0));
        log.addAll(third);
        putUntilCommitted(ctx, log, third, Map.of(a, 3L, b, 3L), () -> server.faults().release());
        assertEquals(Set.of("b.cpu/1"), ctx.dlq.stream().map(r -> r.topic() + "/" + r.kafkaOffset())
                .collect(java.util.stream.Collectors.toSet()));
        Set<String> stored = storedHosts("cpu");
        assertEquals(Set.of(host(a, 0), host(a, 1), host(a, 2), host(b, 0), host(b, 2)), stored);
        assertEquals(List.of("cpu"), server.tables());
    }

    /**
     * Docs vs behaviour, retry.max.attempts (default: no count, retries until retry.delivery.timeout.ms runs out):
     * with the server failing every request retryably, a 10 s delivery budget and the other retry settings at their
     * defaults, one single-row batch is tried more than five times (five backoffs take at most 3.1 s, a third of the
     * budget, so a busy machine still fits them) before the task gives up with RetriableException.
     */
    @Test
    void theDefaultRetryMaxAttemptsRetriesUntilTheDeliveryTimeout() throws Exception {
        Ctx ctx = new Ctx(Dlq.NONE);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(new HashMap<>(Map.of(GreptimeSinkConfig.ENDPOINTS, server.endpoint(), GreptimeSinkConfig.TAGS,
                "host", GreptimeSinkConfig.FLUSH_TIMEOUT, "500", GreptimeSinkConfig.RETRY_DELIVERY, "10000")));
        ctx.assignment.add(P0);
        task.open(List.of(P0));
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        long before = server.faults().injectedCount();
        server.faults().failNext(1_000, StatusCode.StorageUnavailable, "edge: down");
        task.put(List.of(metric(P0, 1, 2.0)));
        RetriableException seen = null;
        long until = System.nanoTime() + WAIT.toNanos();
        while (seen == null && System.nanoTime() < until) {
            try {
                commit(P0);
                task.put(List.of());
            } catch (RetriableException e) {
                seen = e;
            }
            Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
        }
        assertNotNull(seen, "the delivery budget ran out");
        long tried = server.faults().injectedCount() - before;
        assertTrue(tried > 5, "requests tried for one batch: " + tried);
    }

    /**
     * Row X = A in a batch refused because of a poison record (the sink splits it and sends the good records
     * again), row X = B (same tag and time index) in a later batch of the same partition that is stored first.
     * Expected: X ends as B, the later record (last write wins in Kafka's order). A sink that resends the split
     * batch's good records after later batches were stored leaves A.
     */
    @Test
    void resendingTheGoodRecordsOfARefusedBatchDoesNotOverwriteALaterRecordOfTheSameRow() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.BATCH_ROWS, "3", GreptimeSinkConfig.IN_FLIGHT, "4",
                GreptimeSinkConfig.FLUSH_INTERVAL, "60000");
        task.put(List.of(metric(P1, 0, 0.0)));
        awaitCommitted(P1, 1);
        Map<String, Object> a = new HashMap<>(Map.of("host", "x", "cpu", 1.0));
        Map<String, Object> b = new HashMap<>(Map.of("host", "x", "cpu", 2.0));
        task.put(List.of(
                new SinkRecord(TOPIC, 0, null, null, null, a, 0, T0, TimestampType.CREATE_TIME),
                metric(P0, 1, "poison"),
                metric(P0, 2, 3.0),
                new SinkRecord(TOPIC, 0, null, null, null, b, 3, T0, TimestampType.CREATE_TIME),
                metric(P0, 4, 4.0),
                metric(P0, 5, 5.0)));
        awaitCommitted(P0, 6);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(2.0, rowsByHost(TOPIC).get("x").get("cpu"), "the later record of the row wins");
    }
}
