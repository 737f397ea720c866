package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.data.DataType;
import dev.sluice.write.StatusCode;
import dev.sluice.data.TableSchema;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import dev.sluice.testkit.GreptimeTestServer;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The Kafka Connect sink's edge cases of delivery, mapping, dead-lettering and lifecycle, as the module README and
 * the config docs state them: the task is driven as Connect's worker drives it (a fake {@link SinkTaskContext}) against
 * the in-process testkit, and every promise is checked against the rows the testkit stored.
 */
class SinkTaskDeliveryEdgeCasesTest {
    private static final String TOPIC = "edge";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final long T0 = 1_700_000_000_000L;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private GreptimeTestServer server;
    private GreptimeSinkTask task;

    /** Kinds of dead-letter reporter the fake worker offers. */
    enum Dlq {
        NONE, OK, THROWS, HANGS
    }

    /** A fake worker context: records rewinds and the assignment, offers a chosen dead-letter reporter. */
    static final class Ctx implements SinkTaskContext {
        final Map<TopicPartition, Long> rewinds = new ConcurrentHashMap<>();
        final List<SinkRecord> dlq = Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> dlqErrors = Collections.synchronizedList(new ArrayList<>());
        final Set<TopicPartition> assignment = ConcurrentHashMap.newKeySet();
        final List<Long> timeouts = Collections.synchronizedList(new ArrayList<>());
        final Dlq kind;

        Ctx(Dlq kind) {
            this.kind = kind;
        }

        @Override
        public Map<String, String> configs() {
            return Map.of();
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
            rewinds.putAll(offsets);
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
            rewinds.put(tp, offset);
        }

        @Override
        public void timeout(long timeoutMs) {
            timeouts.add(timeoutMs);
        }

        @Override
        public Set<TopicPartition> assignment() {
            return Set.copyOf(assignment);
        }

        @Override
        public void pause(TopicPartition... partitions) {
        }

        @Override
        public void resume(TopicPartition... partitions) {
        }

        @Override
        public void requestCommit() {
        }

        @Override
        public ErrantRecordReporter errantRecordReporter() {
            switch (kind) {
                case NONE:
                    return null;
                case OK:
                    return (record, error) -> {
                        dlq.add(record);
                        dlqErrors.add(error);
                        return CompletableFuture.completedFuture(null);
                    };
                case THROWS:
                    return (record, error) -> {
                        dlqErrors.add(error);
                        throw new org.apache.kafka.connect.errors.ConnectException("test: DLQ producer fenced");
                    };
                default:
                    return (record, error) -> {
                        dlq.add(record);
                        dlqErrors.add(error);
                        return new CompletableFuture<Void>(); // the DLQ producer never answers
                    };
            }
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return null;
        }
    }

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
                // the test's reporter failed the task already
            }
        }
        server.close();
    }

    private Map<String, String> props(String... kv) {
        Map<String, String> m = new HashMap<>();
        m.put(GreptimeSinkConfig.ENDPOINTS, server.endpoint());
        m.put(GreptimeSinkConfig.TAGS, "host");
        m.put(GreptimeSinkConfig.FLUSH_INTERVAL, "20");
        m.put(GreptimeSinkConfig.RETRY_BACKOFF, "1");
        m.put(GreptimeSinkConfig.RETRY_BACKOFF_MAX, "5");
        m.put(GreptimeSinkConfig.FLUSH_TIMEOUT, "5000");
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private Ctx start(Dlq dlq, String... kv) {
        return startOn(List.of(P0, P1), dlq, kv);
    }

    private Ctx startOn(List<TopicPartition> partitions, Dlq dlq, String... kv) {
        Ctx ctx = new Ctx(dlq);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(props(kv));
        ctx.assignment.addAll(partitions);
        task.open(partitions);
        return ctx;
    }

    private static String host(TopicPartition tp, long offset) {
        return tp.topic() + "-p" + tp.partition() + "-o" + offset;
    }

    private static SinkRecord rec(TopicPartition tp, long offset, Object value) {
        return new SinkRecord(tp.topic(), tp.partition(), null, null, null, value, offset, T0 + offset,
                TimestampType.CREATE_TIME);
    }

    private static Map<String, Object> metricValue(TopicPartition tp, long offset, Object cpu) {
        Map<String, Object> v = new HashMap<>();
        v.put("host", host(tp, offset));
        v.put("cpu", cpu);
        return v;
    }

    private static SinkRecord metric(TopicPartition tp, long offset, Object cpu) {
        return rec(tp, offset, metricValue(tp, offset, cpu));
    }

    private Map<TopicPartition, OffsetAndMetadata> commit(TopicPartition... tps) {
        Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
        for (TopicPartition tp : tps) {
            current.put(tp, new OffsetAndMetadata(0));
        }
        return task.preCommit(current);
    }

    private long committed(TopicPartition tp) {
        OffsetAndMetadata o = commit(tp).get(tp);
        return o == null ? -1 : o.offset();
    }

    private Set<String> storedHosts(String table) {
        Set<String> s = new HashSet<>();
        if (!server.tables().contains(table)) {
            return s;
        }
        for (Map<String, Object> r : server.rows(table)) {
            s.add(String.valueOf(r.get("host")));
        }
        return s;
    }

    private Map<String, Map<String, Object>> rowsByHost(String table) {
        Map<String, Map<String, Object>> m = new HashMap<>();
        for (Map<String, Object> r : server.rows(table)) {
            m.put(String.valueOf(r.get("host")), r);
        }
        return m;
    }

    private static void await(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    private void awaitCommitted(TopicPartition tp, long offset) throws InterruptedException {
        await(tp + " committed to " + offset, () -> {
            task.put(List.of());
            return committed(tp) == offset;
        });
    }

    private static DataType typeOf(TableSchema ts, String column) {
        int i = ts.indexOf(column);
        assertTrue(i >= 0, "column " + column + " exists in " + ts);
        return ts.column(i).dataType();
    }

    // ------------------------------------------------------------------------------------------------------
    // At-least-once: offsets against the stored rows, many partitions, two topics, rebalances, retries
    // ------------------------------------------------------------------------------------------------------

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

    private void checkCovered(TopicPartition tp, long offset, String what) {
        Set<String> stored = storedHosts(tp.topic());
        for (long o = 0; o < offset; o++) {
            assertTrue(stored.contains(host(tp, o)),
                    what + " offset " + offset + " of " + tp + " but its record " + o + " is not stored");
        }
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
     * preCommit with the server hanging: it waits at most flush.timeout.ms (here 300 ms; the request timeout is
     * the 60 s default) and reports nothing past the unanswered records.
     */
    @Test
    void preCommitAgainstAHungServerIsBoundedAndReportsNothingUnstored() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.FLUSH_TIMEOUT, "300");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        server.faults().neverRespond(true);
        task.put(List.of(metric(P0, 1, 2.0), metric(P0, 2, 3.0)));
        long t0 = System.nanoTime();
        Map<TopicPartition, OffsetAndMetadata> c = commit(P0, P1);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 20_000, "preCommit took " + ms + " ms with flush.timeout.ms=300");
        assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1, "nothing past the unanswered records: " + c);
        assertFalse(storedHosts(TOPIC).contains(host(P0, 1)));
    }

    /**
     * close(partitions) against a hung server returns within about flush.timeout.ms (300 ms), not after the 60 s
     * default request timeout (Connect's rebalance would time out the member otherwise).
     */
    @Test
    void closeAgainstAHungServerIsBoundedByFlushTimeout() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.FLUSH_TIMEOUT, "300");
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        server.faults().neverRespond(true);
        task.put(List.of(metric(P0, 1, 2.0)));
        long t0 = System.nanoTime();
        try {
            task.close(List.of(P0));
        } catch (RuntimeException acceptable) {
            // close may report the partition's undelivered writes
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 20_000, "close took " + ms + " ms with flush.timeout.ms=300");
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

    // ------------------------------------------------------------------------------------------------------
    // Errors as Connect sees them, and the DLQ
    // ------------------------------------------------------------------------------------------------------

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
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (System.nanoTime() < until) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                if (c.containsKey(P0)) {
                    maxCommitted = Math.max(maxCommitted, c.get(P0).offset());
                }
                task.put(List.of());
                Thread.sleep(20);
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
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (System.nanoTime() < until) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                if (c.containsKey(P0)) {
                    maxCommitted = Math.max(maxCommitted, c.get(P0).offset());
                }
                task.put(List.of());
                Thread.sleep(20);
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
                Thread.sleep(20);
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
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (System.nanoTime() < until) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1, "offset passed the poison: " + c);
                task.put(List.of());
                Thread.sleep(20);
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
        long t0 = System.nanoTime();
        try {
            task.stop();
        } catch (RuntimeException acceptable) {
            // stop may report what was left
        }
        task = null;
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 20_000, "stop took " + ms + " ms");
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

    // ------------------------------------------------------------------------------------------------------
    // Lifecycle
    // ------------------------------------------------------------------------------------------------------

    /** stop() twice, and stop() of a task whose start() failed (Connect calls it), neither throws. */
    @Test
    void stopTwiceAndStopAfterAFailedStartDoNotThrow() throws Exception {
        start(Dlq.NONE);
        task.put(List.of(metric(P0, 0, 1.0)));
        task.stop();
        task.stop();
        assertTrue(storedHosts(TOPIC).contains(host(P0, 0)), "stop flushed the record");
        task = null;
        GreptimeSinkTask broken = new GreptimeSinkTask();
        broken.initialize(new Ctx(Dlq.NONE));
        try {
            broken.start(Map.of(GreptimeSinkConfig.ENDPOINTS, "not a host:port:at all"));
        } catch (RuntimeException expected) {
            // bad config
        }
        broken.stop();
        GreptimeSinkTask neverStarted = new GreptimeSinkTask();
        neverStarted.stop();
    }

    /**
     * put() after stop() must not accept records silently (they could never be written): it throws, or at least
     * nothing is reported as committed for them.
     */
    @Test
    void putAfterStopDoesNotPretendToAcceptRecords() throws Exception {
        start(Dlq.NONE);
        task.stop();
        GreptimeSinkTask stopped = task;
        task = null;
        boolean threw = false;
        try {
            stopped.put(List.of(metric(P0, 0, 1.0)));
        } catch (RuntimeException e) {
            threw = true;
            assertFalse(e instanceof NullPointerException, "a clear error, not an NPE: " + e);
        }
        if (!threw) {
            Map<TopicPartition, OffsetAndMetadata> c = stopped.preCommit(new HashMap<>(Map.of(P0,
                    new OffsetAndMetadata(1))));
            assertTrue(!c.containsKey(P0) || c.get(P0).offset() == 0 || storedHosts(TOPIC).contains(host(P0, 0)),
                    "a stopped task committed a record it never stored: " + c);
        }
    }

    /**
     * max.buffered.rows bounds what a task holds: with the server hanging, one put of 1,000 records with
     * max.buffered.rows=20 gives up (RetriableException after max.block.ms) instead of buffering all of them;
     * once the server answers again, without any redelivery, at most max.buffered.rows of them reach the server.
     */
    @Test
    void aHugePutAgainstAHungServerHoldsAtMostBufferMaxRows() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.BUFFER_ROWS, "20", GreptimeSinkConfig.BATCH_ROWS, "10",
                GreptimeSinkConfig.BUFFER_TIMEOUT, "500", GreptimeSinkConfig.REQUEST_TIMEOUT, "3000",
                GreptimeSinkConfig.RETRY_DELIVERY, "30000", GreptimeSinkConfig.RETRY_ATTEMPTS, "100");
        task.put(List.of(metric(P1, 0, 0.0)));
        awaitCommitted(P1, 1);
        server.faults().neverRespond(true);
        List<SinkRecord> huge = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            huge.add(metric(P0, i, 1.0 * i));
        }
        RetriableException full = null;
        try {
            task.put(huge);
        } catch (RetriableException e) {
            full = e;
        }
        assertNotNull(full, "put gives up at a full buffer");
        server.faults().neverRespond(false);
        await("held rows delivered after the server came back", () -> {
            task.put(List.of());
            commit(P0);
            return storedHosts(TOPIC).size() > 1;
        });
        // let whatever the task held drain
        long drained = -1;
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < until) {
            commit(P0);
            long n = server.rowCount(TOPIC);
            if (n == drained) {
                break;
            }
            drained = n;
            Thread.sleep(500);
        }
        assertTrue(server.rowCount(TOPIC) - 1 <= 20,
                "the task held " + (server.rowCount(TOPIC) - 1) + " rows with max.buffered.rows=20");
    }

    /** A single record bigger than batch.max.bytes is still sent (alone) and stored. */
    @Test
    void aRecordLargerThanBatchMaxBytesIsStillStored() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.BATCH_BYTES, "100");
        Map<String, Object> v = metricValue(P0, 0, 1.0);
        v.put("blob", "y".repeat(10_000));
        task.put(List.of(rec(P0, 0, v), metric(P0, 1, 2.0)));
        awaitCommitted(P0, 2);
        assertEquals("y".repeat(10_000), rowsByHost(TOPIC).get(host(P0, 0)).get("blob"));
    }

    // ------------------------------------------------------------------------------------------------------
    // Mapping: types, nulls, defaults, nested values
    // ------------------------------------------------------------------------------------------------------

    /**
     * An optional field with a default, absent from the Struct: Connect's Struct.get returns the default, so the
     * row holds the default value (a sink reading without defaults stores NULL).
     */
    @Test
    void anOptionalFieldWithADefaultStoresTheDefaultWhenUnset() throws Exception {
        Schema schema = SchemaBuilder.struct().name("d").field("host", Schema.STRING_SCHEMA)
                .field("level", SchemaBuilder.int32().optional().defaultValue(7).build())
                .field("tag2", SchemaBuilder.string().defaultValue("dflt").build())
                .build();
        start(Dlq.NONE);
        Struct s = new Struct(schema).put("host", "h");
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, s, 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        Map<String, Object> row = server.rows(TOPIC).get(0);
        assertEquals(7L, ((Number) row.get("level")).longValue(), "default of level: " + row);
        assertEquals("dflt", row.get("tag2"), "default of tag2: " + row);
    }

    /**
     * Every logical type optional and null on the first record of a new table: the row is stored with NULLs and
     * the columns (when created) have the README's types; a second record with values is stored in them.
     */
    @Test
    void nullLogicalTypesOnTheFirstRecordKeepTheirTypes() throws Exception {
        Schema dec = Decimal.builder(2).parameter("connect.decimal.precision", "10").optional().build();
        Schema schema = SchemaBuilder.struct().name("n").field("host", Schema.STRING_SCHEMA)
                .field("price", dec)
                .field("day", Date.builder().optional().build())
                .field("tod", Time.builder().optional().build())
                .field("seen", Timestamp.builder().optional().build())
                .field("i16", Schema.OPTIONAL_INT16_SCHEMA)
                .field("i32", Schema.OPTIONAL_INT32_SCHEMA)
                .field("i64", Schema.OPTIONAL_INT64_SCHEMA)
                .field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
                .field("s", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        start(Dlq.NONE);
        Struct empty = new Struct(schema).put("host", "a");
        Struct full = new Struct(schema).put("host", "b").put("price", new BigDecimal("12.34"))
                .put("day", new java.util.Date(86_400_000L * 3)).put("tod", new java.util.Date(1_234L))
                .put("seen", new java.util.Date(T0)).put("i16", (short) -300).put("i32", 70_000)
                .put("i64", 1L << 40).put("f64", 0.25).put("s", "str");
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, empty, 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, full, 1, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 2);
        TableSchema ts = server.schema(TOPIC);
        assertEquals(DataType.Decimal128, typeOf(ts, "price"));
        assertEquals(DataType.Date, typeOf(ts, "day"));
        assertEquals(DataType.TimeMillisecond, typeOf(ts, "tod"));
        assertEquals(DataType.TimestampMillisecond, typeOf(ts, "seen"));
        assertEquals(DataType.Int16, typeOf(ts, "i16"));
        assertEquals(DataType.Int32, typeOf(ts, "i32"));
        assertEquals(DataType.Int64, typeOf(ts, "i64"));
        assertEquals(DataType.Float64, typeOf(ts, "f64"));
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        for (String c : List.of("price", "day", "tod", "seen", "i16", "i32", "i64", "f64", "s")) {
            assertNull(rows.get("a").get(c), "null " + c);
        }
        assertEquals(0, new BigDecimal("12.34").compareTo((BigDecimal) rows.get("b").get("price")));
        assertEquals(-300L, ((Number) rows.get("b").get("i16")).longValue());
        assertEquals(70_000L, ((Number) rows.get("b").get("i32")).longValue());
        assertEquals(1L << 40, ((Number) rows.get("b").get("i64")).longValue());
        assertEquals(1_234L, ((Number) rows.get("b").get("tod")).longValue());
    }

    /**
     * ARRAY, MAP (with non-string keys) and nested STRUCT fields become Json columns whose text is valid JSON with
     * the content: struct field names, map keys as text, array elements in order, nulls as null.
     */
    @Test
    void arraysMapsWithIntKeysAndNestedStructsBecomeValidJson() throws Exception {
        Schema inner = SchemaBuilder.struct().name("inner").field("a", Schema.INT32_SCHEMA)
                .field("b", Schema.OPTIONAL_STRING_SCHEMA).build();
        Schema schema = SchemaBuilder.struct().name("outer").field("host", Schema.STRING_SCHEMA)
                .field("arr", SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).build())
                .field("byId", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
                .field("nested", inner)
                .field("structs", SchemaBuilder.array(inner).build())
                .build();
        Map<Integer, String> byId = new TreeMap<>(Map.of(1, "one", 20, "twenty"));
        List<Long> arr = new ArrayList<>(List.of(3L, 1L));
        arr.add(null);
        Struct s = new Struct(schema).put("host", "h").put("arr", arr).put("byId", byId)
                .put("nested", new Struct(inner).put("a", 5).put("b", "q\"uote"))
                .put("structs", List.of(new Struct(inner).put("a", 1), new Struct(inner).put("a", 2).put("b", "z")));
        start(Dlq.NONE);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, s, 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        TableSchema ts = server.schema(TOPIC);
        for (String c : List.of("arr", "byId", "nested", "structs")) {
            assertEquals(DataType.Json, typeOf(ts, c), c);
        }
        Map<String, Object> row = server.rows(TOPIC).get(0);
        ObjectMapper om = new ObjectMapper();
        JsonNode a = om.readTree(String.valueOf(row.get("arr")));
        assertEquals(3, a.size());
        assertEquals(3, a.get(0).asInt());
        assertTrue(a.get(2).isNull());
        JsonNode m = om.readTree(String.valueOf(row.get("byId")));
        assertEquals("one", m.get("1").asText());
        assertEquals("twenty", m.get("20").asText());
        JsonNode n = om.readTree(String.valueOf(row.get("nested")));
        assertEquals(5, n.get("a").asInt());
        assertEquals("q\"uote", n.get("b").asText());
        JsonNode st = om.readTree(String.valueOf(row.get("structs")));
        assertEquals(2, st.get(1).get("a").asInt());
        assertEquals("z", st.get(1).get("b").asText());
        assertTrue(st.get(0).get("b") == null || st.get(0).get("b").isNull());
    }

    /**
     * Schemaless integers of every Java width (Byte, Short, Integer, Long, as JSON converters produce) are one
     * integer type: they all go into the same Int64 column, none is refused.
     */
    @Test
    void schemalessIntegersOfEveryJavaWidthShareOneInt64Column() throws Exception {
        Ctx ctx = start(Dlq.OK);
        Object[] values = {(byte) 1, (short) 2, 3, 4L, java.math.BigInteger.valueOf(5)};
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            recs.add(rec(P0, i, metricValue(P0, i, values[i])));
        }
        task.put(recs.subList(0, 1));
        awaitCommitted(P0, 1);
        task.put(recs.subList(1, recs.size()));
        awaitCommitted(P0, values.length);
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList(), "none refused");
        assertEquals(DataType.Int64, typeOf(server.schema(TOPIC), "cpu"));
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        for (int i = 0; i < values.length; i++) {
            assertEquals(i + 1L, ((Number) rows.get(host(P0, i)).get("cpu")).longValue());
        }
    }

    /**
     * column.types makes a schemaless field whose values are sometimes whole numbers and sometimes not keep one
     * type (README): 1, 1.5 and 2 in separate batches are all stored as Float64.
     */
    @Test
    void columnTypesOverrideKeepsOneTypeAcrossBatchesOfWholeAndFractionalNumbers() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.COLUMN_TYPES, "cpu:Float64");
        task.put(List.of(metric(P0, 0, 1L)));
        awaitCommitted(P0, 1);
        task.put(List.of(metric(P0, 1, 1.5)));
        awaitCommitted(P0, 2);
        task.put(List.of(metric(P0, 2, 2L)));
        awaitCommitted(P0, 3);
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(DataType.Float64, typeOf(server.schema(TOPIC), "cpu"));
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        assertEquals(1.0, rows.get(host(P0, 0)).get("cpu"));
        assertEquals(1.5, rows.get(host(P0, 1)).get("cpu"));
        assertEquals(2.0, rows.get(host(P0, 2)).get("cpu"));
    }

    /**
     * Without an override, a schemaless field first seen as an integer then as a fraction: the later value does
     * not fit the Int64 column and goes to the DLQ (README), naming the column; the earlier row is untouched.
     */
    @Test
    void aSchemalessTypeConflictInALaterBatchGoesToTheDlqNamingTheColumn() throws Exception {
        Ctx ctx = start(Dlq.OK);
        task.put(List.of(metric(P0, 0, 1L)));
        awaitCommitted(P0, 1);
        task.put(List.of(metric(P0, 1, 1.5), metric(P0, 2, 3L)));
        awaitCommitted(P0, 3);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.dlqErrors.get(0).getMessage().contains("column=cpu"), ctx.dlqErrors.get(0).getMessage());
        assertEquals(Set.of(host(P0, 0), host(P0, 2)), storedHosts(TOPIC));
    }

    // ------------------------------------------------------------------------------------------------------
    // Table names
    // ------------------------------------------------------------------------------------------------------

    /**
     * table.name.regex is matched against the whole topic name: a topic it matches is renamed with $1 groups, then
     * the template applies; a topic it only partly matches keeps its name.
     */
    @Test
    void theTableRegexMatchesWholeTopicsOnlyAndTheTemplateAppliesAfterIt() throws Exception {
        TopicPartition prod = new TopicPartition("prod.cpu", 0);
        TopicPartition other = new TopicPartition("xprod.cpu", 0);
        startOn(List.of(prod, other), Dlq.NONE, GreptimeSinkConfig.TABLE_REGEX, "prod\\.(.*)",
                GreptimeSinkConfig.TABLE_REPLACEMENT, "m_$1", GreptimeSinkConfig.TABLE_FORMAT, "k_${topic}");
        task.put(List.of(metric(prod, 0, 1.0), metric(other, 0, 2.0)));
        awaitCommitted(prod, 1);
        awaitCommitted(other, 1);
        assertTrue(server.tables().contains("k_m_cpu"), "renamed then templated: " + server.tables());
        assertTrue(server.tables().contains("k_xprod.cpu"), "partial match not renamed: " + server.tables());
        assertEquals(2, server.tables().size(), server.tables().toString());
    }

    /**
     * A template with ${topic} twice, and a topic whose renamed name starts with a digit: the first is used with
     * both replaced; the second's records cannot be written (README: refused per record) and go to the DLQ, while
     * the partition commits past them.
     */
    @Test
    void aTemplateWithTopicTwiceAndATopicRenamedToADigitFirstName() throws Exception {
        TopicPartition good = new TopicPartition("cpu", 0);
        TopicPartition bad = new TopicPartition("v9", 0);
        Ctx ctx = startOn(List.of(good, bad), Dlq.OK, GreptimeSinkConfig.TABLE_REGEX, "v(\\d)",
                GreptimeSinkConfig.TABLE_REPLACEMENT, "$1", GreptimeSinkConfig.TABLE_FORMAT, "${topic}${topic}");
        task.put(List.of(metric(good, 0, 1.0), metric(bad, 0, 2.0), metric(good, 1, 3.0)));
        awaitCommitted(good, 2);
        awaitCommitted(bad, 1);
        assertEquals(2, server.rowCount("cpucpu"));
        assertEquals(List.of("v9"), ctx.dlq.stream().map(SinkRecord::topic).toList());
        assertEquals(List.of("cpucpu"), server.tables());
    }

    /**
     * table.name.field values that are not usable names (blank, with a space, a number, a ';'): each record
     * goes to the DLQ and the others of the partition are stored and committed; the field is never a column.
     */
    @Test
    void fieldBasedTableNamesThatAreBlankSpacedNumericOrBadlyCharacteredGoToTheDlq() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.TABLE_FIELD, "tbl");
        Object[] names = {"good", "", "has space", 42L, "good", "semi;colon"};
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            Map<String, Object> v = metricValue(P0, i, 1.0 * i);
            if (names[i] != null) {
                v.put("tbl", names[i]);
            }
            recs.add(rec(P0, i, v));
        }
        task.put(recs);
        awaitCommitted(P0, names.length);
        List<Long> dlq = ctx.dlq.stream().map(SinkRecord::kafkaOffset).sorted().toList();
        assertEquals(List.of(1L, 2L, 3L, 5L), dlq,
                "blank, spaced, numeric (digit-first) and ';' names dead-lettered; tables " + server.tables());
        assertTrue(server.tables().contains("good"));
        assertEquals(Set.of(host(P0, 0), host(P0, 4)), storedHosts("good"));
        assertTrue(server.schema("good").indexOf("tbl") < 0);
        long stored = 0;
        for (String t : server.tables()) {
            stored += server.rowCount(t);
        }
        assertEquals(names.length, stored + dlq.size(), "each record stored or dead-lettered once");
    }

    // ------------------------------------------------------------------------------------------------------
    // Time index
    // ------------------------------------------------------------------------------------------------------

    /**
     * No timestamp.field and a record without a Kafka timestamp (null, NO_TIMESTAMP_TYPE): there is no time index
     * (README: "no time index" is a record the sink cannot map), so it goes to the DLQ; the others are stored.
     */
    @Test
    void aRecordWithoutAKafkaTimestampGoesToTheDlqWhenTheTimeIndexIsTheRecordTimestamp() throws Exception {
        Ctx ctx = start(Dlq.OK);
        task.put(List.of(metric(P0, 0, 1.0),
                new SinkRecord(TOPIC, 0, null, null, null, metricValue(P0, 1, 2.0), 1, null,
                        TimestampType.NO_TIMESTAMP_TYPE),
                metric(P0, 2, 3.0)));
        awaitCommitted(P0, 3);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(Set.of(host(P0, 0), host(P0, 2)), storedHosts(TOPIC));
    }

    /** A timestamp field present but null is "no time index": DLQ, naming the field. */
    @Test
    void aNullTimestampFieldGoesToTheDlqNamingTheField() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.TS_FIELD, "at");
        Map<String, Object> v = metricValue(P0, 0, 1.0);
        v.put("at", null);
        Map<String, Object> ok = metricValue(P0, 1, 2.0);
        ok.put("at", 5L);
        task.put(List.of(rec(P0, 0, v), rec(P0, 1, ok)));
        awaitCommitted(P0, 2);
        assertEquals(List.of(0L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.dlqErrors.get(0).getMessage().contains("at"), ctx.dlqErrors.get(0).getMessage());
        assertEquals(Set.of(host(P0, 1)), storedHosts(TOPIC));
    }

    /**
     * timestamp.unit=ns with ISO-8601 text and numbers: the time index is TimestampNanosecond, ISO text keeps its
     * nanosecond fraction exactly, and a negative (pre-1970) number is stored as is.
     */
    @Test
    void nanosecondTimeIndexKeepsIsoFractionsExactlyAndPre1970Values() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.TS_UNIT, "ns");
        Map<String, Object> a = metricValue(P0, 0, 1.0);
        a.put("at", "2024-03-01T10:00:00.123456789Z");
        Map<String, Object> b = metricValue(P0, 1, 2.0);
        b.put("at", -1_500_000_000L);
        task.put(List.of(rec(P0, 0, a), rec(P0, 1, b)));
        awaitCommitted(P0, 2);
        TableSchema ts = server.schema(TOPIC);
        assertEquals(DataType.TimestampNanosecond, ts.column(ts.timestampIndex()).dataType());
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        assertEquals(1_709_287_200_123_456_789L, rows.get(host(P0, 0)).get("at"));
        assertEquals(-1_500_000_000L, rows.get(host(P0, 1)).get("at"));
    }

    /**
     * Expected (config doc of timestamp.unit: "Unit of a numeric timestamp.field, and the precision of the time
     * index column"): with timestamp.unit=ns, a Struct whose timestamp.field is a Connect Timestamp lands in the
     * nanosecond time index (its milliseconds times 10^6), the column type numeric and ISO values of the same
     * topic get. Guards against: the sink sends the Connect Timestamp as TIMESTAMP_MILLISECOND, so on a table created by
     * a numeric/ISO record GreptimeDB refuses it ("column at expect type Timestamp(Nanosecond), given:
     * TIMESTAMP_MILLISECOND") and the task fails naming the record (or dead-letters it); on a table the Struct
     * creates, the time index silently becomes milliseconds despite timestamp.unit=ns.
     */
    @Test
    void aConnectTimestampFieldFollowsTimestampUnitNanoseconds() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.TS_UNIT, "ns");
        Map<String, Object> a = metricValue(P0, 0, 1.0);
        a.put("at", 5L);
        task.put(List.of(rec(P0, 0, a)));
        awaitCommitted(P0, 1);
        Schema schema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("at", Timestamp.SCHEMA)
                .field("cpu", Schema.FLOAT64_SCHEMA).build();
        Struct c = new Struct(schema).put("host", host(P0, 1)).put("at", new java.util.Date(T0 + 7)).put("cpu", 3.0);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, c, 1, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 2);
        assertEquals((T0 + 7) * 1_000_000L, rowsByHost(TOPIC).get(host(P0, 1)).get("at"));
    }

    /**
     * ISO-8601 text beyond what a nanosecond time index holds (year 2300: more than 2^63 ns since 1970) must not be
     * stored with a wrapped-around value: it is a value that does not fit its column, so it goes to the DLQ.
     */
    @Test
    void aFarFutureIsoTimestampThatOverflowsNanosecondsGoesToTheDlqInsteadOfWrapping() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.TS_UNIT, "ns");
        Map<String, Object> near = metricValue(P0, 0, 1.0);
        near.put("at", "2024-01-01T00:00:00Z");
        Map<String, Object> far = metricValue(P0, 1, 2.0);
        far.put("at", "2300-01-01T00:00:00Z");
        task.put(List.of(rec(P0, 0, near), rec(P0, 1, far)));
        awaitCommitted(P0, 2);
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        if (rows.containsKey(host(P0, 1))) {
            fail("year 2300 stored as " + rows.get(host(P0, 1)).get("at") + " ns (wrapped), expected the DLQ");
        }
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
    }

    /**
     * A numeric field in seconds: 10^11 s (year 5138) fits TimestampSecond and is stored exactly (the unit is the
     * column's precision, no conversion).
     */
    @Test
    void aNumericTimestampInSecondsIsStoredWithoutConversion() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.TS_UNIT, "s");
        Map<String, Object> v = metricValue(P0, 0, 1.0);
        v.put("at", 100_000_000_000L);
        task.put(List.of(rec(P0, 0, v)));
        awaitCommitted(P0, 1);
        assertEquals(100_000_000_000L, server.rows(TOPIC).get(0).get("at"));
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

    // ------------------------------------------------------------------------------------------------------
    // Docs vs behaviour
    // ------------------------------------------------------------------------------------------------------

    /**
     * The README says max.buffered.rows is "At least batch.max.rows": a configuration below that is refused by the
     * connector's validation (or the task's start) rather than accepted.
     */
    @Test
    void bufferMaxRowsBelowBatchMaxRowsIsRefusedAsDocumented() {
        Map<String, String> p = props(GreptimeSinkConfig.BATCH_ROWS, "1000", GreptimeSinkConfig.BUFFER_ROWS, "10");
        p.put("connector.class", "dev.sluice.kafka.connect.GreptimeSinkConnector");
        p.put("topics", TOPIC);
        org.apache.kafka.common.config.Config result = new dev.sluice.kafka.connect.GreptimeSinkConnector()
                .validate(p);
        boolean flagged = result.configValues().stream().anyMatch(v -> !v.errorMessages().isEmpty()
                && (v.name().equals(GreptimeSinkConfig.BUFFER_ROWS) || v.name().equals(GreptimeSinkConfig.BATCH_ROWS)));
        boolean startFails = false;
        GreptimeSinkTask t = new GreptimeSinkTask();
        t.initialize(new Ctx(Dlq.NONE));
        try {
            t.start(p);
        } catch (RuntimeException e) {
            startFails = true;
        } finally {
            try {
                t.stop();
            } catch (RuntimeException ignored) {
                // not started
            }
        }
        assertTrue(flagged || startFails, "max.buffered.rows=10 < batch.max.rows=1000 accepted silently");
    }

    /**
     * The defaults the README's table lists are the ones a config without those keys gets (read through the
     * public ConfigDef), and the connector's validate accepts a minimal config (endpoints only).
     */
    @Test
    void readmeDefaultsMatchTheConfigDefAndAMinimalConfigValidates() throws Exception {
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("README.md"));
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("greptimedb.database", "public");
        expected.put("write.path", "regular");
        expected.put("batch.max.rows", "10000");
        expected.put("batch.max.bytes", "8388608");
        expected.put("batch.flush.interval.ms", "200");
        expected.put("max.in.flight.requests", "4");
        expected.put("max.buffered.rows", "50000");
        expected.put("max.block.ms", "30000");
        expected.put("retry.max.attempts", "2147483647");
        expected.put("retry.delivery.timeout.ms", "120000");
        expected.put("redelivery.backoff.ms", "5000");
        expected.put("flush.timeout.ms", "30000");
        expected.put("timestamp.unit", "ms");
        expected.put("timestamp.column", "ts");
        expected.put("delete.enabled", "false");
        expected.put("table.name.format", "${topic}");
        GreptimeSinkConfig cfg = new GreptimeSinkConfig(Map.of(GreptimeSinkConfig.ENDPOINTS, "h:4001"));
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertTrue(readme.contains("| `" + e.getKey() + "` | ") && readme.contains(" | " + e.getValue() + " | "),
                    "README lists " + e);
            assertEquals(e.getValue(), String.valueOf(cfg.originals().getOrDefault(e.getKey(),
                    cfg.values().get(e.getKey()))), e.getKey());
        }
        org.apache.kafka.common.config.Config result = new dev.sluice.kafka.connect.GreptimeSinkConnector()
                .validate(new HashMap<>(Map.of(GreptimeSinkConfig.ENDPOINTS, server.endpoint(),
                        "connector.class", "dev.sluice.kafka.connect.GreptimeSinkConnector", "topics", TOPIC)));
        result.configValues().forEach(v -> assertEquals(List.of(), v.errorMessages(), v.name()));
    }

    /**
     * The documented default time-index column for the record timestamp is {@code ts}, millisecond precision, and
     * the default tag list is empty (every field a field column) when tag.fields is not set.
     */
    @Test
    void withoutTagFieldsEveryFieldIsAFieldColumnAndTheTimeIndexIsTsInMilliseconds() throws Exception {
        Ctx ctx = new Ctx(Dlq.NONE);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        Map<String, String> p = props();
        p.remove(GreptimeSinkConfig.TAGS);
        task.start(p);
        ctx.assignment.add(P0);
        task.open(List.of(P0));
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        TableSchema ts = server.schema(TOPIC);
        assertEquals("ts", ts.column(ts.timestampIndex()).name());
        assertEquals(DataType.TimestampMillisecond, ts.column(ts.timestampIndex()).dataType());
        assertEquals(T0, server.rows(TOPIC).get(0).get("ts"));
    }

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

    // ------------------------------------------------------------------------------------------------------
    // Second round: rewinds across partitions, lifecycle leaks, the bulk path, config validation
    // ------------------------------------------------------------------------------------------------------

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
                Thread.sleep(20);
            }
        } catch (RetriableException e) {
            seen = e;
        }
        assertNotNull(seen, "the outage surfaced as RetriableException");
        assertTrue(ctx.timeouts.contains(1234L), "context.timeout(redelivery.backoff.ms) requested: " + ctx.timeouts);
    }

    /** Twenty start/put/stop cycles leave no sluice- thread behind (no per-task leak). */
    @Test
    void repeatedStartStopCyclesLeaveNoThreads() throws Exception {
        Set<Thread> before = sluiceThreads();
        for (int i = 0; i < 20; i++) {
            start(Dlq.NONE);
            task.put(List.of(metric(P0, i, 1.0 * i)));
            task.stop();
            task = null;
        }
        assertEquals(20, server.rowCount(TOPIC), "every cycle's record flushed by stop()");
        await("no new sluice- threads but the shared sweeper", () -> {
            Set<Thread> now = sluiceThreads();
            now.removeAll(before);
            now.removeIf(t -> t.getName().equals("sluice-memory-sweeper"));
            return now.isEmpty();
        });
    }

    /**
     * A start() that fails (a TLS CA file that does not exist) throws a clear ConnectException naming the setting,
     * and leaves no thread of its own behind after stop().
     */
    @Test
    void aStartFailingOnAMissingCaFileNamesItAndLeavesNoThreads() throws Exception {
        Set<Thread> before = sluiceThreads();
        GreptimeSinkTask t = new GreptimeSinkTask();
        t.initialize(new Ctx(Dlq.NONE));
        RuntimeException failure = null;
        try {
            t.start(props(GreptimeSinkConfig.TLS_CA, "/nonexistent/edge-ca.pem"));
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            t.stop();
        } catch (RuntimeException ignored) {
            // stop after a failed start
        }
        assertNotNull(failure, "start fails on a missing CA file");
        String msg = String.valueOf(failure.getMessage()) + " " + failure.getCause();
        assertTrue(msg.contains("edge-ca.pem") || msg.contains(GreptimeSinkConfig.TLS_CA), msg);
        await("no new sluice- threads", () -> {
            Set<Thread> now = sluiceThreads();
            now.removeAll(before);
            now.removeIf(th -> th.getName().equals("sluice-memory-sweeper"));
            return now.isEmpty();
        });
    }

    private static Set<Thread> sluiceThreads() {
        Set<Thread> s = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("sluice-")) {
                s.add(t);
            }
        }
        return s;
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
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
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
            Thread.sleep(20);
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

    /** column.types with an unknown type or without a colon is refused by the connector's validation. */
    @Test
    void malformedColumnTypesAreRefusedByValidation() {
        for (String bad : List.of("cpu:Float65", "cpu", "cpu:Decimal128(50,2)", ":Int64")) {
            Map<String, String> p = props(GreptimeSinkConfig.COLUMN_TYPES, bad);
            p.put("connector.class", "dev.sluice.kafka.connect.GreptimeSinkConnector");
            p.put("topics", TOPIC);
            org.apache.kafka.common.config.Config result = new dev.sluice.kafka.connect.GreptimeSinkConnector()
                    .validate(p);
            boolean flagged = result.configValues().stream()
                    .anyMatch(v -> v.name().equals(GreptimeSinkConfig.COLUMN_TYPES) && !v.errorMessages().isEmpty());
            assertTrue(flagged, "column.types=" + bad + " accepted");
        }
    }

    /**
     * A tag (tag.fields) present in some records and absent in others: the absent one is a NULL tag (GreptimeDB tags
     * are nullable), stored, not refused, and both rows are distinct.
     */
    @Test
    void aMissingTagValueIsStoredAsNull() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.TAGS, "host,region");
        Map<String, Object> a = metricValue(P0, 0, 1.0);
        a.put("region", "eu");
        Map<String, Object> b = metricValue(P0, 1, 2.0);
        task.put(List.of(rec(P0, 0, a)));
        awaitCommitted(P0, 1);
        task.put(List.of(rec(P0, 1, b)));
        awaitCommitted(P0, 2);
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        assertEquals("eu", rows.get(host(P0, 0)).get("region"));
        assertNull(rows.get(host(P0, 1)).get("region"));
    }

    // ------------------------------------------------------------------------------------------------------
    // Third round: connection settings, routing to many tables, schema evolution, name collisions
    // ------------------------------------------------------------------------------------------------------

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

    /** greptimedb.database, table.hints and write.compression reach the server: rows in that database, ttl set. */
    @Test
    void databaseHintsAndCompressionAreApplied() throws Exception {
        server.createDatabase("edge_db");
        start(Dlq.NONE, GreptimeSinkConfig.DATABASE, "edge_db", GreptimeSinkConfig.HINTS, "ttl=7d",
                GreptimeSinkConfig.COMPRESSION, "zstd");
        task.put(List.of(metric(P0, 0, 1.0), metric(P0, 1, 2.0)));
        awaitCommitted(P0, 2);
        assertEquals(2, server.rowCount("edge_db", TOPIC));
        assertFalse(server.tables().contains(TOPIC), "nothing in public");
        String ttl = server.tableOptions("edge_db", TOPIC).get("ttl");
        assertTrue(ttl != null && (ttl.equals("7d") || ttl.equals("7days")), "ttl of the created table: " + ttl);
    }

    /**
     * table.name.field spreading one put over 60 tables (two records each, interleaved, two partitions): every
     * table gets exactly its records and both partitions commit everything.
     */
    @Test
    void oneInterleavedPutOverSixtyFieldRoutedTablesStoresEachRecordInItsTable() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TABLE_FIELD, "tbl", GreptimeSinkConfig.BATCH_ROWS, "7");
        List<SinkRecord> recs = new ArrayList<>();
        long[] next = new long[2];
        for (int round = 0; round < 2; round++) {
            for (int t = 0; t < 60; t++) {
                TopicPartition tp = t % 2 == 0 ? P0 : P1;
                long o = next[tp.partition()]++;
                Map<String, Object> v = metricValue(tp, o, 1.0 * t);
                v.put("tbl", "t_" + t);
                recs.add(rec(tp, o, v));
            }
        }
        task.put(recs);
        awaitCommitted(P0, next[0]);
        awaitCommitted(P1, next[1]);
        assertEquals(60, server.tables().size());
        for (int t = 0; t < 60; t++) {
            assertEquals(2, server.rowCount("t_" + t), "t_" + t);
            for (Map<String, Object> r : server.rows("t_" + t)) {
                assertEquals(1.0 * t, r.get("cpu"), "t_" + t + " holds only its records: " + r);
            }
        }
    }

    /**
     * A Struct schema evolving a field's type (INT32, then STRING under the same name): the later records do not
     * fit the existing column, so they go to the DLQ naming the column; the partition commits past them.
     */
    @Test
    void aStructFieldChangingTypeBetweenSchemaVersionsGoesToTheDlqNamingTheColumn() throws Exception {
        Schema v1 = SchemaBuilder.struct().name("e").version(1).field("host", Schema.STRING_SCHEMA)
                .field("code", Schema.INT32_SCHEMA).build();
        Schema v2 = SchemaBuilder.struct().name("e").version(2).field("host", Schema.STRING_SCHEMA)
                .field("code", Schema.STRING_SCHEMA).build();
        Ctx ctx = start(Dlq.OK);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, v1, new Struct(v1).put("host", "a").put("code", 1), 0,
                T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        task.put(List.of(
                new SinkRecord(TOPIC, 0, null, null, v2, new Struct(v2).put("host", "b").put("code", "E1"), 1, T0,
                        TimestampType.CREATE_TIME),
                new SinkRecord(TOPIC, 0, null, null, v1, new Struct(v1).put("host", "c").put("code", 3), 2, T0,
                        TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 3);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.dlqErrors.get(0).getMessage().contains("column=code"), ctx.dlqErrors.get(0).getMessage());
        assertEquals(Set.of("a", "c"), storedHosts(TOPIC));
    }

    /**
     * A Struct value in a SinkRecord without a value schema (some SMTs drop it): the Struct's own schema is used,
     * the record is stored with its typed columns.
     */
    @Test
    void aStructValueWithoutARecordSchemaUsesTheStructsOwnSchema() throws Exception {
        Schema schema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("n", Schema.INT16_SCHEMA)
                .build();
        start(Dlq.NONE);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, null, new Struct(schema).put("host", "a")
                .put("n", (short) 3), 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        assertEquals(DataType.Int16, typeOf(server.schema(TOPIC), "n"));
        assertEquals(3L, ((Number) server.rows(TOPIC).get(0).get("n")).longValue());
    }

    /**
     * A value field named like timestamp.column (default ts) while the time index is the record timestamp, holding
     * text: it cannot be both the time index and a text column, so the record must not be stored with its ts text
     * silently dropped: it goes to the DLQ (naming ts) or the text survives somewhere in the row.
     */
    @Test
    void aValueFieldCollidingWithTheTimestampColumnIsNotDroppedSilently() throws Exception {
        Ctx ctx = start(Dlq.OK);
        Map<String, Object> v = metricValue(P0, 0, 1.0);
        v.put("ts", "hello");
        task.put(List.of(rec(P0, 0, v), metric(P0, 1, 2.0)));
        awaitCommitted(P0, 2);
        boolean dlq = ctx.dlq.stream().anyMatch(r -> r.kafkaOffset() == 0);
        Map<String, Object> row = rowsByHost(TOPIC).get(host(P0, 0));
        boolean kept = row != null && row.containsValue("hello");
        assertTrue(dlq || kept, "record 0 committed as " + row + ": its ts text was dropped silently");
        assertTrue(storedHosts(TOPIC).contains(host(P0, 1)));
    }

    /**
     * A Decimal without connect.decimal.precision gets DECIMAL(38, s) (README); a value with more than 38 digits does
     * not fit and goes to the DLQ; a date before 1970 is stored as that date.
     */
    @Test
    void aDecimalOverThirtyEightDigitsGoesToTheDlqAndAPre1970DateIsKept() throws Exception {
        Schema schema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("d", Decimal.schema(2))
                .field("day", Date.SCHEMA).build();
        Ctx ctx = start(Dlq.OK);
        java.util.Date day = new java.util.Date(java.time.LocalDate.of(1960, 6, 15).toEpochDay() * 86_400_000L);
        Struct ok = new Struct(schema).put("host", "ok").put("d", new BigDecimal("123456789012345678901234567890.12"))
                .put("day", day);
        Struct wide = new Struct(schema).put("host", "wide").put("d", new BigDecimal("1" + "0".repeat(40) + ".00"))
                .put("day", day);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, ok, 0, T0, TimestampType.CREATE_TIME),
                new SinkRecord(TOPIC, 0, null, null, schema, wide, 1, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 2);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(new dev.sluice.data.DecimalType(38, 2), server.schema(TOPIC).column(server.schema(TOPIC).indexOf("d"))
                .decimalType());
        Map<String, Object> row = rowsByHost(TOPIC).get("ok");
        assertEquals(0, new BigDecimal("123456789012345678901234567890.12").compareTo((BigDecimal) row.get("d")));
        assertEquals(java.time.LocalDate.of(1960, 6, 15), row.get("day"));
    }

    /**
     * The server restarting (every connection dropped) while batches are in flight: commits never run ahead of the
     * stored rows, and everything is stored once it is back.
     */
    /**
     * Drops every connection and listens again on the same port; the rebind is retried (the old listening socket
     * may take a moment to go away on a loaded machine).
     */
    private void restartServer() {
        server.stop();
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                server.resume();
                return;
            } catch (java.io.UncheckedIOException e) {
                if (System.nanoTime() > until) {
                    throw e;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(ie);
                }
            }
        }
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

    // ------------------------------------------------------------------------------------------------------
    // Fourth round: size limits, deadlines, bulk refusals, bulk deletes
    // ------------------------------------------------------------------------------------------------------

    /**
     * Drives partition 0 as Connect does until offset {@code target} is committed: puts what is pending, and after a
     * RetriableException re-reads the partition's log from the rewind offset. Returns how many
     * RetriableExceptions were seen; fails when the deadline passes.
     */
    private int driveUntilCommitted(Ctx ctx, List<SinkRecord> log, long target, Duration limit) throws Exception {
        return driveUntilCommitted(ctx, log, log, target, limit, round -> { });
    }

    /** As above, starting with {@code initial} pending and calling {@code hook} with each round's number first. */
    private int driveUntilCommitted(Ctx ctx, List<SinkRecord> log, List<SinkRecord> initial, long target,
            Duration limit, java.util.function.IntConsumer hook) throws Exception {
        List<SinkRecord> pending = new ArrayList<>(initial);
        int retriables = 0;
        long until = System.nanoTime() + limit.toNanos();
        int round = 0;
        while (true) {
            hook.accept(round++);
            try {
                task.put(pending);
                pending = List.of();
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                if (c.containsKey(P0)) {
                    checkCovered(P0, c.get(P0).offset(), "preCommit", ctx);
                    if (c.get(P0).offset() == target) {
                        return retriables;
                    }
                }
            } catch (RetriableException e) {
                retriables++;
                Long from = ctx.rewinds.remove(P0);
                if (from != null) {
                    pending = new ArrayList<>();
                    for (SinkRecord r : log) {
                        if (r.kafkaOffset() >= from) {
                            pending.add(r);
                        }
                    }
                }
            }
            if (System.nanoTime() > until) {
                throw new AssertionError("offset " + target + " not committed within " + limit + " (retriable "
                        + retriables + ", DLQ " + ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList() + ")");
            }
            Thread.sleep(20);
        }
    }

    /** Like checkCovered, counting dead-lettered records as settled. */
    private void checkCovered(TopicPartition tp, long offset, String what, Ctx ctx) {
        Set<String> stored = storedHosts(tp.topic());
        Set<Long> dead = new HashSet<>();
        for (SinkRecord r : List.copyOf(ctx.dlq)) {
            if (r.topic().equals(tp.topic()) && r.kafkaPartition() == tp.partition()) {
                dead.add(r.kafkaOffset());
            }
        }
        for (long o = 0; o < offset; o++) {
            assertTrue(stored.contains(host(tp, o)) || dead.contains(o),
                    what + " offset " + offset + " of " + tp + " but its record " + o + " is neither stored nor in the DLQ");
        }
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
        task.put(List.of(metric(P1, 0, 0.0)));
        awaitCommitted(P1, 1);
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
            Thread.sleep(20);
        }
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList(),
                "timed-out requests dead-lettered valid records");
        server.faults().latency(Duration.ZERO);
        driveUntilCommitted(ctx, recs, pending, 10, WAIT, round -> { });
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(11, server.rowCount(TOPIC));
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
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
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

    // ------------------------------------------------------------------------------------------------------
    // Fifth round: order of deletes and inserts under retries, tag order, free-form names
    // ------------------------------------------------------------------------------------------------------

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
     * Config doc of tag.fields: "Fields stored as tag columns (GreptimeDB's primary key, in this order)". With
     * tag.fields=region,host and a record whose fields come host first, the table the sink creates must have the
     * primary key (region, host). Guards against: (host, region): the tags follow the record's field order (a schemaless
     * JSON object's key order, or a Struct's field order), so the key order of a new table depends on the first
     * record rather than on the configuration (GreptimeDB makes TAG columns the primary key in request order
     * of a row insert).
     */
    @Test
    void tagsFollowTagFieldsOrder() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TAGS, "region,host");
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("host", "h1");
        v.put("cpu", 0.5);
        v.put("region", "eu");
        task.put(List.of(rec(P0, 0, v)));
        awaitCommitted(P0, 1);
        List<String> tags = new ArrayList<>();
        for (TableSchema.Column c : server.schema(TOPIC).columns()) {
            if (c.semanticType() == dev.sluice.data.SemanticType.Tag) {
                tags.add(c.name());
            }
        }
        assertEquals(List.of("region", "host"), tags);
    }

    /** Column names are free-form (dots, spaces, unicode) and stored as given. */
    @Test
    void freeFormColumnNamesAreKept() throws Exception {
        start(Dlq.NONE);
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("host", "h1");
        v.put("cpu.usage", 0.5);
        v.put("disk free", 10L);
        v.put("température", 21.5);
        task.put(List.of(rec(P0, 0, v)));
        awaitCommitted(P0, 1);
        Map<String, Object> row = server.rows(TOPIC).get(0);
        assertEquals(0.5, row.get("cpu.usage"));
        assertEquals(10L, row.get("disk free"));
        assertEquals(21.5, row.get("température"));
    }

    // ------------------------------------------------------------------------------------------------------
    // Sixth round: two topics into one table, type decided across partitions, the connector
    // ------------------------------------------------------------------------------------------------------

    /**
     * Two topics renamed into one table (regex), with the same partition numbers and offsets, a poison record in
     * one of them and the server hanging on and off: each topic-partition commits on its own records only, the
     * poison goes to the DLQ with its own topic, and every commit is backed by that topic's stored rows.
     */
    @Test
    void twoTopicsIntoOneTableKeepTheirOffsetsApart() throws Exception {
        TopicPartition a = new TopicPartition("a.cpu", 0);
        TopicPartition b = new TopicPartition("b.cpu", 0);
        Ctx ctx = startOn(List.of(a, b), Dlq.OK, GreptimeSinkConfig.TABLE_REGEX, "(a|b)\\.(.*)",
                GreptimeSinkConfig.TABLE_REPLACEMENT, "$2", GreptimeSinkConfig.FLUSH_TIMEOUT, "200");
        task.put(List.of(metric(a, 0, 1.0), metric(b, 0, 1.0)));
        awaitCommitted(a, 1);
        awaitCommitted(b, 1);
        task.put(List.of(metric(a, 1, 2.0), metric(b, 1, "poison"), metric(b, 2, 3.0), metric(a, 2, 3.0)));
        awaitCommitted(a, 3);
        awaitCommitted(b, 3);
        assertEquals(List.of("b.cpu/1"), ctx.dlq.stream().map(r -> r.topic() + "/" + r.kafkaOffset()).toList());
        Set<String> stored = storedHosts("cpu");
        assertEquals(Set.of(host(a, 0), host(a, 1), host(a, 2), host(b, 0), host(b, 2)), stored);
        assertEquals(List.of("cpu"), server.tables());
    }

    /**
     * A new table, one put with partition 1's record first (cpu = 1.5) and partition 0's second (cpu = 1): the
     * earliest record of the put decides the column type (README: "decided by the earliest record"), so cpu is
     * Float64 and the 1.5 record is stored; the integer record is stored or dead-lettered, never lost.
     */
    @Test
    void acrossPartitionsOfOnePutTheEarliestRecordDecidesANewColumnsType() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.FLUSH_INTERVAL, "60000");
        task.put(List.of(metric(P1, 0, 1.5), metric(P0, 0, 1L)));
        awaitCommitted(P0, 1);
        awaitCommitted(P1, 1);
        assertEquals(DataType.Float64, typeOf(server.schema(TOPIC), "cpu"));
        assertTrue(storedHosts(TOPIC).contains(host(P1, 0)), "the earliest record is stored");
        assertFalse(ctx.dlq.stream().anyMatch(r -> r.kafkaPartition() == 1), "the earliest record not refused");
        assertEquals(2, storedHosts(TOPIC).size() + ctx.dlq.size());
    }

    /** The connector hands tasks.max identical configs carrying every setting, and its config() is the ConfigDef. */
    @Test
    void theConnectorHandsEveryTaskTheSameCompleteConfig() {
        dev.sluice.kafka.connect.GreptimeSinkConnector c = new dev.sluice.kafka.connect.GreptimeSinkConnector();
        Map<String, String> p = props(GreptimeSinkConfig.COLUMN_TYPES, "cpu:Float64");
        p.put("topics", TOPIC);
        c.start(p);
        try {
            List<Map<String, String>> configs = c.taskConfigs(3);
            assertEquals(3, configs.size());
            for (Map<String, String> m : configs) {
                assertEquals("cpu:Float64", m.get(GreptimeSinkConfig.COLUMN_TYPES));
                assertEquals(server.endpoint(), m.get(GreptimeSinkConfig.ENDPOINTS));
            }
            assertEquals(GreptimeSinkTask.class, c.taskClass());
            assertTrue(c.config().names().contains(GreptimeSinkConfig.BUFFER_ROWS));
            assertFalse(c.version() == null || c.version().isBlank());
        } finally {
            c.stop();
        }
    }

    /**
     * A healthy server and a put far bigger than max.buffered.rows (20,000 records, buffer 200, batches of 100): put
     * waits for room as batches are acknowledged (README) and returns without RetriableException; all committed.
     */
    @Test
    void aPutFarBiggerThanTheBufferWaitsForRoomAgainstAHealthyServer() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.BUFFER_ROWS, "200", GreptimeSinkConfig.BATCH_ROWS, "100",
                GreptimeSinkConfig.BUFFER_TIMEOUT, "30000");
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            recs.add(metric(P0, i, 1.0 * i));
        }
        task.put(recs);
        awaitCommitted(P0, 20_000);
        assertEquals(20_000, server.rowCount(TOPIC));
    }

    /**
     * max.buffered.rows = batch.max.rows = 100 and a long linger (60 s), one put of 150 records over two tables: no
     * batch ever fills (the rows split per table), so a sink waiting only for full batches or the linger would
     * sit on a full buffer until put gives up. Expected: a full buffer sends what it holds, so put returns
     * (within max.block.ms = 10 s) without RetriableException and everything is committed. Observed: put
     * sits on the full buffer for max.block.ms and throws RetriableException "GreptimeDB did not acknowledge
     * some records within the client's retries; rewinding {probe2-0=0}" although the server is healthy and was
     * never asked (the message blames GreptimeDB for the sink's own linger); Connect's retried put meets the same
     * full buffer until the 60 s linger expires, so the task stalls for a whole linger per cycle.
     */
    @Test
    void aFullBufferOfPartialBatchesIsSentRatherThanWaitingForTheLinger() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.BUFFER_ROWS, "100", GreptimeSinkConfig.BATCH_ROWS, "100",
                GreptimeSinkConfig.FLUSH_INTERVAL, "60000", GreptimeSinkConfig.BUFFER_TIMEOUT, "10000",
                GreptimeSinkConfig.TABLE_FIELD, "tbl");
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            Map<String, Object> v = metricValue(P0, i, 1.0 * i);
            v.put("tbl", i % 2 == 0 ? "even" : "odd");
            recs.add(rec(P0, i, v));
        }
        task.put(recs);
        awaitCommitted(P0, 150);
        assertEquals(75, server.rowCount("even"));
        assertEquals(75, server.rowCount("odd"));
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
     * No thread of any name outlives the task (not only sluice-*): after put, a hung request and stop() on the
     * bulk path (Arrow Flight) and on the regular path, every thread started while the task ran has ended, except
     * the testkit's, gRPC's shared cached executor (grpc-default-executor, idle threads expire on their own), the
     * process-wide buffer sweeper and the JDK's common pool.
     */
    @Test
    void noThreadOfAnyNameOutlivesTheTaskOnEitherPath() throws Exception {
        for (String path : List.of("bulk", "regular")) {
            Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
            start(Dlq.NONE, GreptimeSinkConfig.WRITE_PATH, path, GreptimeSinkConfig.FLUSH_TIMEOUT, "300",
                    GreptimeSinkConfig.REQUEST_TIMEOUT, "2000", GreptimeSinkConfig.TABLE_FORMAT, "thr_" + path);
            task.put(List.of(metric(P0, 0, 1.0)));
            awaitCommitted(P0, 1);
            if (path.equals("bulk")) {
                server.faults().bulkNeverAck(true);
            } else {
                server.faults().neverRespond(true);
            }
            task.put(List.of(metric(P0, 1, 2.0)));
            try {
                task.stop();
            } catch (RuntimeException acceptable) {
                // stop may report the undelivered record
            }
            task = null;
            server.faults().reset();
            List<String> left = new ArrayList<>();
            long until = System.nanoTime() + WAIT.toNanos();
            do {
                left.clear();
                for (Thread t : Thread.getAllStackTraces().keySet()) {
                    String n = t.getName();
                    if (t.isAlive() && !before.contains(t) && !n.startsWith("testkit-")
                            && !n.startsWith("grpc-default-executor") && !n.equals("sluice-memory-sweeper")
                            && !n.startsWith("ForkJoinPool.commonPool") && !n.startsWith("surefire")) {
                        left.add(n);
                    }
                }
                if (!left.isEmpty()) {
                    Thread.sleep(20);
                }
            } while (!left.isEmpty() && System.nanoTime() < until);
            assertEquals(List.of(), left, "threads the " + path + " task started, alive " + WAIT + " after stop()");
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
     * Docs vs behaviour, retry.max.attempts (default: no count, retries until retry.delivery.timeout.ms runs out):
     * with the server failing every request retryably, a 5 s delivery budget and the other retry settings at their
     * defaults, one single-row batch is tried more than five times (five backoffs take at most 3.1 s) before the
     * task gives up with RetriableException.
     */
    @Test
    void theDefaultRetryMaxAttemptsRetriesUntilTheDeliveryTimeout() throws Exception {
        Ctx ctx = new Ctx(Dlq.NONE);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(new HashMap<>(Map.of(GreptimeSinkConfig.ENDPOINTS, server.endpoint(), GreptimeSinkConfig.TAGS,
                "host", GreptimeSinkConfig.FLUSH_TIMEOUT, "500", GreptimeSinkConfig.RETRY_DELIVERY, "5000")));
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
            Thread.sleep(20);
        }
        assertNotNull(seen, "the delivery budget ran out");
        long tried = server.faults().injectedCount() - before;
        assertTrue(tried > 5, "requests tried for one batch: " + tried);
    }

    /**
     * Docs vs behaviour, batch.flush.interval.ms (default 200 ms): a lone record is sent on its own after the linger,
     * without any preCommit/flush asking for it.
     */
    @Test
    void aLoneRecordIsSentAfterTheDefaultLingerWithoutAFlush() throws Exception {
        Ctx ctx = new Ctx(Dlq.NONE);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(new HashMap<>(Map.of(GreptimeSinkConfig.ENDPOINTS, server.endpoint(), GreptimeSinkConfig.TAGS,
                "host")));
        ctx.assignment.add(P0);
        task.open(List.of(P0));
        task.put(List.of(metric(P0, 0, 1.0)));
        await("the record stored without a flush", () -> server.tables().contains(TOPIC)
                && server.rowCount(TOPIC) == 1);
    }

    /**
     * A new table, the earliest record's (cpu = 1.5) request failing retryably once, a later record with cpu text
     * in the same put: the earliest record still decides (README), so cpu is Float64 and the text record goes to
     * the DLQ, even though the text row's batch could have reached the server first.
     */
    @Test
    void theEarliestRecordDecidesANewColumnsTypeEvenWhenItsRequestIsRetried() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.RETRY_ATTEMPTS, "10", GreptimeSinkConfig.IN_FLIGHT, "4");
        server.faults().failNext(1, StatusCode.StorageUnavailable, "edge: first write busy");
        task.put(List.of(metric(P0, 0, 1.5), metric(P0, 1, "text"), metric(P0, 2, 2.5)));
        awaitCommitted(P0, 3);
        assertEquals(DataType.Float64, typeOf(server.schema(TOPIC), "cpu"));
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(Set.of(host(P0, 0), host(P0, 2)), storedHosts(TOPIC));
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

    /**
     * Logical types and bytes inside a nested Struct (a Json column): the JSON text is valid and keeps the decimal's
     * exact value, the timestamp (epoch milliseconds or ISO-8601 text) and the bytes (as some text or array).
     */
    @Test
    void logicalTypesInsideANestedStructBecomeValidJsonWithTheirValues() throws Exception {
        Schema inner = SchemaBuilder.struct().name("in").field("price", Decimal.schema(2))
                .field("at", Timestamp.SCHEMA).field("raw", Schema.BYTES_SCHEMA)
                .field("day", Date.SCHEMA).build();
        Schema schema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("detail", inner).build();
        java.util.Date day = new java.util.Date(java.time.LocalDate.of(2024, 2, 29).toEpochDay() * 86_400_000L);
        Struct s = new Struct(schema).put("host", "h").put("detail", new Struct(inner)
                .put("price", new BigDecimal("12345678901234567.89")).put("at", new java.util.Date(T0))
                .put("raw", new byte[] {1, 2, (byte) 255}).put("day", day));
        start(Dlq.NONE);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, s, 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        assertEquals(DataType.Json, typeOf(server.schema(TOPIC), "detail"));
        String text = String.valueOf(server.rows(TOPIC).get(0).get("detail"));
        JsonNode n = new ObjectMapper()
                .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .readTree(text);
        assertEquals(0, new BigDecimal("12345678901234567.89").compareTo(n.get("price").decimalValue()),
                "exact decimal in " + text);
        JsonNode at = n.get("at");
        assertTrue(at.asLong() == T0 || at.asText().startsWith(java.time.Instant.ofEpochMilli(T0).toString()
                .substring(0, 19)), "timestamp in " + text);
        assertNotNull(n.get("raw"), "bytes kept in " + text);
        assertNotNull(n.get("day"), "date kept in " + text);
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
        task.put(List.of(rec(P0, 0, first)));
        awaitCommitted(P0, 1);
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

    /**
     * column.types overrides of schemaless values, from the documented list: an integer into UInt32, a fraction
     * into Float32 and into Decimal128(10,2), an integer into TimestampMicrosecond (a non-time-index column), text
     * into Json. Each column has the override's type and the value converted.
     */
    @Test
    void columnTypesOverridesConvertSchemalessValuesToTheDocumentedTypes() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.COLUMN_TYPES,
                "n:UInt32,f:Float32,d:Decimal128(10,2),seen:TimestampMicrosecond,doc:Json");
        Map<String, Object> v = metricValue(P0, 0, 1.0);
        v.put("n", 5L);
        v.put("f", 0.5);
        v.put("d", 1.25);
        v.put("seen", 123L);
        v.put("doc", "{\"k\":[1,2]}");
        task.put(List.of(rec(P0, 0, v)));
        awaitCommitted(P0, 1);
        assertEquals(List.of(), ctx.dlqErrors.stream().map(Throwable::getMessage).toList());
        TableSchema ts = server.schema(TOPIC);
        assertEquals(DataType.UInt32, typeOf(ts, "n"));
        assertEquals(DataType.Float32, typeOf(ts, "f"));
        assertEquals(DataType.Decimal128, typeOf(ts, "d"));
        assertEquals(new dev.sluice.data.DecimalType(10, 2), ts.column(ts.indexOf("d")).decimalType());
        assertEquals(DataType.TimestampMicrosecond, typeOf(ts, "seen"));
        assertEquals(DataType.Json, typeOf(ts, "doc"));
        Map<String, Object> row = server.rows(TOPIC).get(0);
        assertEquals(5L, ((Number) row.get("n")).longValue());
        assertEquals(0.5f, ((Number) row.get("f")).floatValue());
        assertEquals(0, new BigDecimal("1.25").compareTo((BigDecimal) row.get("d")));
        assertEquals(123L, ((Number) row.get("seen")).longValue());
        assertEquals(2, new ObjectMapper().readTree(String.valueOf(row.get("doc"))).get("k").get(1).asInt());
    }

    /**
     * Values that do not fit an overridden narrow type (README: "a value that does not fit its column" goes to the
     * DLQ at once): 300 into Int8, -1 into UInt32, 5,000,000,000 into UInt32, 1e40 into Float32. None is stored
     * wrapped or saturated; each goes to the DLQ naming its column, and the fitting record is stored.
     */
    @Test
    void valuesOverflowingAnOverriddenNarrowTypeGoToTheDlqInsteadOfWrapping() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.COLUMN_TYPES, "i8:Int8,u32:UInt32,f32:Float32");
        Object[][] cases = {{"i8", 300L}, {"u32", -1L}, {"u32", 5_000_000_000L}, {"f32", 1e40}};
        List<SinkRecord> recs = new ArrayList<>();
        Map<String, Object> fits = metricValue(P0, 0, 1.0);
        fits.put("i8", 7L);
        fits.put("u32", 7L);
        fits.put("f32", 0.25);
        recs.add(rec(P0, 0, fits));
        for (int i = 0; i < cases.length; i++) {
            Map<String, Object> v = metricValue(P0, i + 1, 1.0);
            v.put((String) cases[i][0], cases[i][1]);
            recs.add(rec(P0, i + 1, v));
        }
        task.put(recs);
        awaitCommitted(P0, cases.length + 1);
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        for (int i = 0; i < cases.length; i++) {
            Map<String, Object> row = rows.get(host(P0, i + 1));
            assertNull(row, cases[i][0] + "=" + cases[i][1] + " stored as " + row);
        }
        assertEquals(List.of(1L, 2L, 3L, 4L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).sorted().toList());
        for (int i = 0; i < cases.length; i++) {
            String msg = ctx.dlqErrors.get(i).getMessage();
            assertTrue(msg.contains("column="), "names the column: " + msg);
        }
        assertEquals(7L, ((Number) rows.get(host(P0, 0)).get("i8")).longValue());
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
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (System.nanoTime() < until) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                if (c.containsKey(P0)) {
                    maxCommitted = Math.max(maxCommitted, c.get(P0).offset());
                }
                task.put(List.of());
                Thread.sleep(20);
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        boolean stored = server.tables().contains(TOPIC) && server.rowCount(TOPIC) == 2;
        assertTrue(stored || ctx.dlq.isEmpty(), "dead-lettered with " + ctx.dlqErrors + " (committed " + maxCommitted
                + ", failure " + failure + ")");
        assertTrue(stored || maxCommitted == 0, "committed " + maxCommitted + " with nothing stored");
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
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (System.nanoTime() < until) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                if (c.containsKey(P0)) {
                    maxCommitted = Math.max(maxCommitted, c.get(P0).offset());
                }
                task.put(List.of());
                Thread.sleep(20);
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList(),
                "dead-lettered with " + ctx.dlqErrors + " (failure " + failure + ")");
        assertEquals(0, maxCommitted);
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
        long t0 = System.nanoTime();
        try {
            task.close(List.of(P0));
        } catch (RuntimeException acceptable) {
            // close may report the unsettled record
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 20_000, "close took " + ms + " ms with flush.timeout.ms=300");
    }

    /**
     * ISO-8601 texts with an offset and with a fraction (README: "an ISO-8601 instant text"): each is the instant
     * it names, converted to UTC milliseconds.
     */
    @Test
    void isoTimestampsWithOffsetsAndFractionsNameTheirInstant() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TS_FIELD, "at");
        String[] texts = {"2024-03-01T12:00:00+02:00", "2024-03-01T10:00:00.5Z", "2024-03-01T05:30:00-04:30"};
        long[] expected = {1_709_287_200_000L, 1_709_287_200_500L, 1_709_287_200_000L};
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            Map<String, Object> v = metricValue(P0, i, 1.0);
            v.put("at", texts[i]);
            recs.add(rec(P0, i, v));
        }
        task.put(recs);
        awaitCommitted(P0, texts.length);
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        for (int i = 0; i < texts.length; i++) {
            assertEquals(expected[i], rows.get(host(P0, i)).get("at"), texts[i]);
        }
    }
}
