package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.Await;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The Kafka Connect sink task driven as Connect's worker drives it (a fake {@link SinkTaskContext} with a chosen
 * dead-letter reporter) against the in-process testkit, with the helpers the sink's behaviour tests share: records,
 * commits, and the rows the testkit stored.
 */
abstract class SinkTaskFixture {
    static final String TOPIC = "edge";
    static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    static final long T0 = 1_700_000_000_000L;
    /**
     * A request timeout or delivery deadline (in ms, as the connector's settings take it) longer than
     * {@link Await#HANG_GUARD}: a call that returns within the guard did not wait it out.
     */
    static final String BEYOND_THE_HANG_GUARD = Long.toString(Await.BEYOND_THE_HANG_GUARD.toMillis());

    static final Duration WAIT = Duration.ofSeconds(60);

    GreptimeTestServer server;
    GreptimeSinkTask task;

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

    Map<String, String> props(String... kv) {
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

    Ctx start(Dlq dlq, String... kv) {
        return startOn(List.of(P0, P1), dlq, kv);
    }

    Ctx startOn(List<TopicPartition> partitions, Dlq dlq, String... kv) {
        Ctx ctx = new Ctx(dlq);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(props(kv));
        ctx.assignment.addAll(partitions);
        task.open(partitions);
        return ctx;
    }

    static String host(TopicPartition tp, long offset) {
        return tp.topic() + "-p" + tp.partition() + "-o" + offset;
    }

    static SinkRecord rec(TopicPartition tp, long offset, Object value) {
        return new SinkRecord(tp.topic(), tp.partition(), null, null, null, value, offset, T0 + offset,
                TimestampType.CREATE_TIME);
    }

    static Map<String, Object> metricValue(TopicPartition tp, long offset, Object cpu) {
        Map<String, Object> v = new HashMap<>();
        v.put("host", host(tp, offset));
        v.put("cpu", cpu);
        return v;
    }

    static SinkRecord metric(TopicPartition tp, long offset, Object cpu) {
        return rec(tp, offset, metricValue(tp, offset, cpu));
    }

    Map<TopicPartition, OffsetAndMetadata> commit(TopicPartition... tps) {
        Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
        for (TopicPartition tp : tps) {
            current.put(tp, new OffsetAndMetadata(0));
        }
        return task.preCommit(current);
    }

    long committed(TopicPartition tp) {
        OffsetAndMetadata o = commit(tp).get(tp);
        return o == null ? -1 : o.offset();
    }

    Set<String> storedHosts(String table) {
        Set<String> s = new HashSet<>();
        if (!server.tables().contains(table)) {
            return s;
        }
        for (Map<String, Object> r : server.rows(table)) {
            s.add(String.valueOf(r.get("host")));
        }
        return s;
    }

    Map<String, Map<String, Object>> rowsByHost(String table) {
        Map<String, Map<String, Object>> m = new HashMap<>();
        for (Map<String, Object> r : server.rows(table)) {
            m.put(String.valueOf(r.get("host")), r);
        }
        return m;
    }

    static void await(String what, BooleanSupplier cond) throws InterruptedException {
        Await.until(what, WAIT, cond);
    }

    void awaitCommitted(TopicPartition tp, long offset) throws InterruptedException {
        await(tp + " committed to " + offset, () -> {
            task.put(List.of());
            return committed(tp) == offset;
        });
    }

    /**
     * Puts {@code records} and drives the task as Connect's worker does until {@code tp} has committed
     * {@code offset}, redelivering from a rewind: on a busy machine a first write (its table created, its channel
     * opened) may outlive a short {@code retry.delivery.timeout.ms}, which is not what the calling test is about.
     */
    void putAndAwaitCommitted(Ctx ctx, TopicPartition tp, long offset, SinkRecord... records)
            throws InterruptedException {
        List<SinkRecord> log = List.of(records);
        putUntilCommitted(ctx, log, log, Map.of(tp, offset), () -> { });
    }

    static DataType typeOf(TableSchema ts, String column) {
        int i = ts.indexOf(column);
        assertTrue(i >= 0, "column " + column + " exists in " + ts);
        return ts.column(i).dataType();
    }

    void checkCovered(TopicPartition tp, long offset, String what) {
        Set<String> stored = storedHosts(tp.topic());
        for (long o = 0; o < offset; o++) {
            assertTrue(stored.contains(host(tp, o)),
                    what + " offset " + offset + " of " + tp + " but its record " + o + " is not stored");
        }
    }

    static Set<Thread> sluiceThreads() {
        Set<Thread> s = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("sluice-")) {
                s.add(t);
            }
        }
        return s;
    }

    /**
     * Drops every connection and listens again on the same port; the rebind is retried (the old listening socket
     * may take a moment to go away on a loaded machine).
     */
    void restartServer() {
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
                    Thread.sleep(100); // a poll for the old listening socket to go, bounded by the deadline
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(ie);
                }
            }
        }
    }

    /**
     * Puts {@code records} and drives the task as Connect's worker does until every partition in {@code targets} has
     * committed its target offset: after a RetriableException, the records of each rewound partition are read again
     * from its log (the records put so far) starting at the rewind offset, after {@code onRetriable} ran. Fails when
     * {@link #WAIT} passes.
     */
    void putUntilCommitted(Ctx ctx, List<SinkRecord> log, List<SinkRecord> records,
            Map<TopicPartition, Long> targets, Runnable onRetriable) throws InterruptedException {
        List<SinkRecord> pending = new ArrayList<>(records);
        await(targets + " committed", () -> {
            try {
                task.put(pending);
                pending.clear();
                for (Map.Entry<TopicPartition, Long> t : targets.entrySet()) {
                    if (committed(t.getKey()) != t.getValue()) {
                        return false;
                    }
                }
                return true;
            } catch (RetriableException e) {
                onRetriable.run();
                pending.clear();
                for (SinkRecord r : log) {
                    Long from = ctx.rewinds.get(new TopicPartition(r.topic(), r.kafkaPartition()));
                    if (from != null && r.kafkaOffset() >= from) {
                        pending.add(r);
                    }
                }
                ctx.rewinds.clear();
                return false;
            }
        });
    }

    /**
     * Drives partition 0 as Connect does until offset {@code target} is committed: puts what is pending, and after a
     * RetriableException re-reads the partition's log from the rewind offset. Returns how many
     * RetriableExceptions were seen; fails when the deadline passes.
     */
    int driveUntilCommitted(Ctx ctx, List<SinkRecord> log, long target, Duration limit) throws Exception {
        return driveUntilCommitted(ctx, log, log, target, limit, round -> { });
    }

    /** As above, starting with {@code initial} pending and calling {@code hook} with each round's number first. */
    int driveUntilCommitted(Ctx ctx, List<SinkRecord> log, List<SinkRecord> initial, long target,
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
            Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
        }
    }

    /** Like checkCovered, counting dead-lettered records as settled. */
    void checkCovered(TopicPartition tp, long offset, String what, Ctx ctx) {
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
}
