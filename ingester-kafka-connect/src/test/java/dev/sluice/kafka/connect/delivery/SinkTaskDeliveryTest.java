package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.write.StatusCode;
import dev.sluice.data.TableSchema;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import dev.sluice.testkit.GreptimeTestServer;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
import org.junit.jupiter.api.Test;

/**
 * The sink task's delivery and mapping promises as the README and the config docs state them: the task driven as
 * a Connect worker drives it, against the testkit.
 */
class SinkTaskDeliveryTest {
    private static final String TOPIC = "sink";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final long T0 = 1_700_000_000_000L;

    private GreptimeTestServer server;
    private GreptimeSinkTask task;
    private Set<Thread> threadsBeforeStart = Set.of();

    /** A minimal worker context: records rewinds, optionally offers a dead-letter reporter. */
    static final class Ctx implements SinkTaskContext {
        final Map<TopicPartition, Long> rewinds = new ConcurrentHashMap<>();
        final List<SinkRecord> dlq = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> dlqErrors = java.util.Collections.synchronizedList(new ArrayList<>());
        final boolean withDlq;
        volatile boolean failReports;

        Ctx(boolean withDlq) {
            this.withDlq = withDlq;
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
        }

        @Override
        public Set<TopicPartition> assignment() {
            return Set.of(P0, P1);
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
            if (!withDlq) {
                return null;
            }
            return (record, error) -> {
                dlq.add(record);
                dlqErrors.add(error);
                if (failReports) {
                    return CompletableFuture.failedFuture(new org.apache.kafka.common.KafkaException("test: DLQ down"));
                }
                return CompletableFuture.completedFuture(null);
            };
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
                // already failed
            }
        }
        server.close();
    }

    private Ctx start(boolean dlq, String... kv) {
        threadsBeforeStart = sluiceThreads();
        Map<String, String> m = new HashMap<>();
        m.put(GreptimeSinkConfig.ENDPOINTS, server.endpoint());
        m.put(GreptimeSinkConfig.TAGS, "host");
        m.put(GreptimeSinkConfig.FLUSH_INTERVAL, "20");
        m.put(GreptimeSinkConfig.RETRY_BACKOFF, "1");
        m.put(GreptimeSinkConfig.RETRY_BACKOFF_MAX, "5");
        m.put(GreptimeSinkConfig.FLUSH_TIMEOUT, "2000");
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        Ctx ctx = new Ctx(dlq);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(m);
        task.open(List.of(P0, P1));
        return ctx;
    }

    private static String host(int partition, long offset) {
        return "p" + partition + "-o" + offset;
    }

    private static SinkRecord rec(int partition, long offset, Object value) {
        return new SinkRecord(TOPIC, partition, null, null, null, value, offset, T0 + offset,
                TimestampType.CREATE_TIME);
    }

    private static SinkRecord metric(int partition, long offset, Object cpu) {
        Map<String, Object> v = new HashMap<>();
        v.put("host", host(partition, offset));
        v.put("cpu", cpu);
        return rec(partition, offset, v);
    }

    private Map<TopicPartition, OffsetAndMetadata> commit(TopicPartition... tps) {
        Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
        for (TopicPartition tp : tps) {
            current.put(tp, new OffsetAndMetadata(0));
        }
        return task.preCommit(current);
    }

    private Set<String> storedHosts() {
        Set<String> s = new HashSet<>();
        if (!server.tables().contains(TOPIC)) {
            return s;
        }
        for (Map<String, Object> r : server.rows(TOPIC)) {
            s.add((String) r.get("host"));
        }
        return s;
    }

    /** Every offset returned must have all earlier records of its partition stored. */
    private void assertCommitCovered(Map<TopicPartition, OffsetAndMetadata> c, Set<Long> skipped) {
        Set<String> stored = storedHosts();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : c.entrySet()) {
            int p = e.getKey().partition();
            for (long o = 0; o < e.getValue().offset(); o++) {
                if (skipped.contains(o)) {
                    continue;
                }
                assertTrue(stored.contains(host(p, o)), "committed offset " + e.getValue().offset() + " of " + e.getKey()
                        + " but record at offset " + o + " is not stored");
            }
        }
    }

    private static void await(String what, java.util.function.BooleanSupplier cond) throws InterruptedException {
        dev.sluice.Await.until(what, Duration.ofSeconds(60), cond);
    }

    @Test
    void committedOffsetsNeverRunAheadOfStoredRowsUnderRetryableFailuresAndLatency() throws Exception {
        start(false, GreptimeSinkConfig.BATCH_ROWS, "7", GreptimeSinkConfig.FLUSH_TIMEOUT, "50",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "100", GreptimeSinkConfig.IN_FLIGHT, "4");
        server.faults().failEvery(3, StatusCode.StorageUnavailable, "test: storage busy");
        server.faults().latency(Duration.ofMillis(15));
        long[] next = new long[2];
        for (int round = 0; round < 40; round++) {
            List<SinkRecord> batch = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                int p = (round + i) % 2;
                batch.add(metric(p, next[p]++, round * 1.0 + i));
            }
            task.put(batch);
            assertCommitCovered(commit(P0, P1), Set.of());
        }
        server.faults().reset();
        await("every record committed", () -> {
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0, P1);
            assertCommitCovered(c, Set.of());
            return c.containsKey(P0) && c.get(P0).offset() == next[0] && c.containsKey(P1)
                    && c.get(P1).offset() == next[1];
        });
        assertEquals(next[0] + next[1], server.rowCount(TOPIC));
    }

    @Test
    void aRetryableFailureOutlivingRetriesRaisesRetriableAndCommitsNothingThenRedeliveryStoresAll()
            throws Exception {
        Ctx ctx = start(false, GreptimeSinkConfig.RETRY_ATTEMPTS, "2", GreptimeSinkConfig.RETRY_DELIVERY, "300",
                GreptimeSinkConfig.FLUSH_TIMEOUT, "500", GreptimeSinkConfig.REDELIVERY_BACKOFF, "10");
        server.faults().failNext(1_000_000, StatusCode.StorageUnavailable, "test: down");
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(metric(i % 2, i / 2, 1.0 * i));
        }
        task.put(batch);
        RetriableException seen = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (seen == null && System.nanoTime() < deadline) {
            try {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0, P1);
                for (OffsetAndMetadata o : c.values()) {
                    assertEquals(0, o.offset(), "no offset may advance while nothing is stored: " + c);
                }
                task.put(List.of());
            } catch (RetriableException e) {
                seen = e;
            }
            Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
        }
        assertNotNull(seen, "a failure outliving retries must surface as RetriableException");
        assertEquals(0, server.rowCount(TOPIC));
        assertEquals(0L, ctx.rewinds.get(P0), "partition 0 rewound to its first unsettled record: " + ctx.rewinds);
        assertEquals(0L, ctx.rewinds.get(P1), "partition 1 rewound to its first unsettled record: " + ctx.rewinds);
        server.faults().reset();
        ctx.rewinds.clear();
        // Connect redelivers from the rewind, and again should the redelivery outlive the short delivery timeout.
        ConnectLikeDriver connect = new ConnectLikeDriver(ctx);
        connect.deliver(batch);
        await("all redelivered records committed", () -> {
            connect.poll();
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0, P1);
            return c.containsKey(P0) && c.get(P0).offset() == 10 && c.containsKey(P1) && c.get(P1).offset() == 10;
        });
        assertEquals(20, server.rowCount(TOPIC));
    }

    @Test
    void aTypeConflictWithoutDeadLetterQueueFailsTheTaskNamingTopicPartitionOffsetTableColumn() throws Exception {
        start(false);
        task.put(List.of(metric(0, 0, 1.5), metric(0, 1, 2.5)));
        assertEquals(2, commit(P0).get(P0).offset());
        // cpu is Float64 in the table now; a text value can never be written
        ConnectException failure = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try {
            task.put(List.of(metric(1, 0, 3.0), metric(1, 1, "not-a-number"), metric(1, 2, 4.0)));
            while (System.nanoTime() < deadline) {
                commit(P0, P1);
                task.put(List.of());
                Thread.sleep(20); // the simulated worker's poll interval: the loop ends on its condition or deadline
            }
        } catch (ConnectException e) {
            failure = e;
        }
        assertNotNull(failure, "the task must fail");
        assertTrue(!(failure instanceof RetriableException), "a poison record is not retriable: " + failure);
        String msg = failure.getMessage();
        for (String part : List.of("topic=" + TOPIC, "partition=1", "offset=1", "table=" + TOPIC, "column=cpu")) {
            assertTrue(msg.contains(part), "message names " + part + ": " + msg);
        }
    }

    @Test
    void withAnErrantRecordReporterPoisonGoesThereAndTheRestIsStoredAndCommitted() throws Exception {
        Ctx ctx = start(true);
        task.put(List.of(metric(0, 0, 1.5)));
        assertEquals(1, commit(P0).get(P0).offset());
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 1; i < 30; i++) {
            batch.add(metric(0, i, i == 13 ? "poison" : (Object) (i * 1.5)));
            batch.add(metric(1, i - 1, i == 20 ? Map.of("nested", 1) : (Object) (i * 1.5)));
        }
        task.put(batch);
        await("all committed", () -> {
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0, P1);
            return c.containsKey(P0) && c.get(P0).offset() == 30 && c.containsKey(P1) && c.get(P1).offset() == 29;
        });
        Set<String> dlqHosts = new HashSet<>();
        for (SinkRecord r : ctx.dlq) {
            dlqHosts.add(r.topic() + "/" + r.kafkaPartition() + "/" + r.kafkaOffset());
        }
        assertEquals(Set.of(TOPIC + "/0/13", TOPIC + "/1/19"), dlqHosts);
        Set<String> stored = storedHosts();
        assertEquals(30 + 29 - 2, stored.size());
        assertTrue(!stored.contains(host(0, 13)) && !stored.contains(host(1, 19)));
    }

    @Test
    void tombstonesAreSkippedAndCommittedByDefault() throws Exception {
        start(false);
        task.put(List.of(metric(0, 0, 1.0), rec(0, 1, null), metric(0, 2, 2.0), rec(0, 3, null)));
        assertEquals(4, commit(P0).get(P0).offset());
        assertEquals(Set.of(host(0, 0), host(0, 2)), storedHosts());
    }

    @Test
    void closingOnePartitionLeavesTheOtherCommittable() throws Exception {
        start(false, GreptimeSinkConfig.FLUSH_INTERVAL, "60000");
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(metric(0, i, 1.0 * i));
            batch.add(metric(1, i, 1.0 * i));
        }
        task.put(batch);
        task.close(List.of(P0));
        // close() waits for P0's writes: they are stored now
        for (int i = 0; i < 10; i++) {
            assertTrue(storedHosts().contains(host(0, i)), "closed partition's record " + i + " stored by close()");
        }
        task.put(List.of(metric(1, 10, 10.0)));
        Map<TopicPartition, OffsetAndMetadata> c = commit(P1);
        assertEquals(11, c.get(P1).offset());
        assertTrue(!c.containsKey(P0), "a closed partition is not reported: " + c);
        assertCommitCovered(c, Set.of());
    }

    @Test
    void stopLeavesNoSluiceThreadEvenWithTheServerHanging() throws Exception {
        start(false, GreptimeSinkConfig.FLUSH_TIMEOUT, "500", GreptimeSinkConfig.REQUEST_TIMEOUT, "1000");
        task.put(List.of(metric(0, 0, 1.0)));
        await("first record committed", () -> {
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
            return c.containsKey(P0) && c.get(P0).offset() == 1;
        });
        server.faults().neverRespond(true);
        task.put(List.of(metric(0, 1, 2.0), metric(1, 0, 3.0)));
        Set<Thread> taskThreads = sluiceThreads();
        taskThreads.removeAll(threadsBeforeStart);
        taskThreads.removeIf(t -> t.getName().equals(SHARED_SWEEPER));
        assertTrue(!taskThreads.isEmpty(), "the running task has threads of its own to end");
        dev.sluice.Await.returns("stop() with the server hanging", () -> {
            try {
                task.stop();
            } catch (RuntimeException acceptable) {
                // stop may report what it could not deliver
            }
        });
        task = null;
        server.faults().neverRespond(false);
        // The threads this task started, not others of the JVM: other tests' clients may still be ending, and
        // the buffer sweeper is one daemon per process (ReuseCache.sharedSweeper), not per client.
        await("every sluice- thread the task started ended", () -> taskThreads.stream().noneMatch(Thread::isAlive));
        Set<Thread> left = sluiceThreads();
        left.removeAll(threadsBeforeStart);
        left.removeIf(t -> t.getName().equals(SHARED_SWEEPER));
        await("no new sluice- thread but the shared sweeper " + left, () -> left.stream().noneMatch(Thread::isAlive));
    }

    /** The process-wide daemon expiring idle transport buffers, shared by every client of the JVM. */
    private static final String SHARED_SWEEPER = "sluice-memory-sweeper";

    private static Set<Thread> sluiceThreads() {
        Set<Thread> s = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("sluice-")) {
                s.add(t);
            }
        }
        return s;
    }

    @Test
    void connectLogicalTypesMapToTheirGreptimeTypesAndValues() throws Exception {
        Schema dec = Decimal.builder(3).parameter("connect.decimal.precision", "12").optional().build();
        Schema schema = SchemaBuilder.struct().name("m")
                .field("host", Schema.STRING_SCHEMA)
                .field("price", dec)
                .field("day", Date.builder().optional().build())
                .field("tod", Time.builder().optional().build())
                .field("seen", Timestamp.builder().optional().build())
                .field("i8", Schema.OPTIONAL_INT8_SCHEMA)
                .field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA)
                .field("flag", Schema.OPTIONAL_BOOLEAN_SCHEMA)
                .field("raw", Schema.OPTIONAL_BYTES_SCHEMA)
                .build();
        java.util.Date day = new java.util.Date(LocalDate.of(2024, 2, 29).toEpochDay() * 86_400_000L);
        java.util.Date tod = new java.util.Date(((13 * 60 + 14) * 60 + 15) * 1000L + 678);
        java.util.Date seen = new java.util.Date(1_712_345_678_901L);
        Struct s = new Struct(schema).put("host", "h1").put("price", new BigDecimal("-12345.678"))
                .put("day", day).put("tod", tod).put("seen", seen).put("i8", (byte) -7).put("f32", 1.25f)
                .put("flag", true).put("raw", new byte[] {1, 2, 3});
        start(false);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, s, 0, T0, TimestampType.CREATE_TIME)));
        assertEquals(1, commit(P0).get(P0).offset());
        TableSchema ts = server.schema(TOPIC);
        assertEquals(DataType.Decimal128, ts.column(ts.indexOf("price")).dataType());
        assertEquals(new DecimalType(12, 3), ts.column(ts.indexOf("price")).decimalType());
        assertEquals(DataType.Date, ts.column(ts.indexOf("day")).dataType());
        assertEquals(DataType.TimeMillisecond, ts.column(ts.indexOf("tod")).dataType());
        assertEquals(DataType.TimestampMillisecond, ts.column(ts.indexOf("seen")).dataType());
        assertEquals(DataType.Int8, ts.column(ts.indexOf("i8")).dataType());
        assertEquals(DataType.Float32, ts.column(ts.indexOf("f32")).dataType());
        assertEquals(DataType.Bool, ts.column(ts.indexOf("flag")).dataType());
        assertEquals(DataType.Binary, ts.column(ts.indexOf("raw")).dataType());
        Map<String, Object> row = server.rows(TOPIC).get(0);
        assertEquals(0, new BigDecimal("-12345.678").compareTo((BigDecimal) row.get("price")), "price " + row);
        assertEquals(LocalDate.of(2024, 2, 29), row.get("day"));
        assertEquals(((13 * 60 + 14) * 60 + 15) * 1000L + 678, row.get("tod"));
        assertEquals(1_712_345_678_901L, row.get("seen"));
        assertEquals(-7L, row.get("i8"));
        assertEquals(1.25f, ((Number) row.get("f32")).floatValue());
        assertEquals(Boolean.TRUE, row.get("flag"));
        assertEquals(List.of((byte) 1, (byte) 2, (byte) 3), bytes((byte[]) row.get("raw")));
        assertEquals(T0, row.get("ts"), "the Kafka record timestamp is the time index by default");
    }

    private static List<Byte> bytes(byte[] b) {
        List<Byte> l = new ArrayList<>();
        for (byte x : b) {
            l.add(x);
        }
        return l;
    }

    @Test
    void schemalessNestedMapsAndListsBecomeJsonWithTheirContent() throws Exception {
        start(false);
        Map<String, Object> v = new HashMap<>();
        v.put("host", "h1");
        v.put("n", 42L);
        v.put("x", 0.5);
        v.put("ok", false);
        v.put("meta", Map.of("region", "eu", "deep", Map.of("k", List.of(1, 2, 3)), "nil", "v"));
        v.put("list", List.of("a", Map.of("b", 2)));
        v.put("gone", null);
        task.put(List.of(rec(0, 0, v)));
        assertEquals(1, commit(P0).get(P0).offset());
        TableSchema ts = server.schema(TOPIC);
        assertEquals(DataType.Int64, ts.column(ts.indexOf("n")).dataType());
        assertEquals(DataType.Float64, ts.column(ts.indexOf("x")).dataType());
        assertEquals(DataType.Bool, ts.column(ts.indexOf("ok")).dataType());
        assertEquals(DataType.Json, ts.column(ts.indexOf("meta")).dataType());
        assertEquals(DataType.Json, ts.column(ts.indexOf("list")).dataType());
        Map<String, Object> row = server.rows(TOPIC).get(0);
        ObjectMapper om = new ObjectMapper();
        JsonNode meta = om.readTree((String) row.get("meta"));
        assertEquals("eu", meta.get("region").asText());
        assertEquals(3, meta.get("deep").get("k").get(2).asInt());
        JsonNode list = om.readTree((String) row.get("list"));
        assertEquals("a", list.get(0).asText());
        assertEquals(2, list.get(1).get("b").asInt());
        assertTrue(ts.indexOf("gone") < 0 || row.get("gone") == null);
    }

    @Test
    void redeliveryOfTheSameRecordsIsAbsorbedOnAnOrdinaryTable() throws Exception {
        start(false);
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(metric(0, i, 1.0 * i));
        }
        task.put(batch);
        assertEquals(10, commit(P0).get(P0).offset());
        task.put(batch);
        assertEquals(10, commit(P0).get(P0).offset());
        assertEquals(10, server.rowCount(TOPIC));
    }

    @Test
    void offsetGapsOfACompactedTopicDoNotStallTheCommit() throws Exception {
        start(false);
        task.put(List.of(metric(0, 1000, 1.0), metric(0, 1003, 2.0), metric(0, 1010, 3.0),
                metric(1, 7, 4.0), metric(1, 9, 5.0)));
        await("commit past the gaps", () -> {
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0, P1);
            return c.containsKey(P0) && c.get(P0).offset() == 1011 && c.containsKey(P1) && c.get(P1).offset() == 10;
        });
        assertEquals(5, server.rowCount(TOPIC));
    }

    @Test
    void aPartitionClosedWhileTheServerHangsIsNotCommittedAndLaterRedeliveryStoresIt() throws Exception {
        start(false, GreptimeSinkConfig.FLUSH_TIMEOUT, "300", GreptimeSinkConfig.REQUEST_TIMEOUT, "5000");
        task.put(List.of(metric(0, 0, 1.0), metric(1, 0, 1.0)));
        await("first records committed", () -> commit(P0, P1).size() == 2
                && commit(P0, P1).get(P0).offset() == 1 && commit(P0, P1).get(P1).offset() == 1);
        server.faults().neverRespond(true);
        task.put(List.of(metric(0, 1, 2.0), metric(0, 2, 3.0)));
        try {
            task.close(List.of(P0));
        } catch (RuntimeException acceptable) {
            // close may report the partition's undelivered writes
        }
        Map<TopicPartition, OffsetAndMetadata> c = commit(P1);
        assertTrue(!c.containsKey(P0), "a closed partition is not committed: " + c);
        server.faults().neverRespond(false);
        task.open(List.of(P0));
        task.put(List.of(metric(0, 1, 2.0), metric(0, 2, 3.0)));
        await("reopened partition committed", () -> {
            Map<TopicPartition, OffsetAndMetadata> cc = commit(P0, P1);
            assertCommitCovered(cc, Set.of());
            return cc.containsKey(P0) && cc.get(P0).offset() == 3;
        });
        assertTrue(storedHosts().containsAll(List.of(host(0, 1), host(0, 2))));
    }

    @Test
    void anUnusableTableNameFromARecordFieldGoesToTheDeadLetterQueue() throws Exception {
        Ctx ctx = start(true, GreptimeSinkConfig.TABLE_FIELD, "tbl");
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Map<String, Object> v = new HashMap<>();
            v.put("host", host(0, i));
            v.put("cpu", 1.0 * i);
            v.put("tbl", i == 2 ? "9bad" : "good_table");
            batch.add(rec(0, i, v));
        }
        task.put(batch);
        await("all committed", () -> {
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
            return c.containsKey(P0) && c.get(P0).offset() == 5;
        });
        assertEquals(1, ctx.dlq.size());
        assertEquals(2, ctx.dlq.get(0).kafkaOffset());
        assertEquals(4, server.rowCount("good_table"));
        assertTrue(server.schema("good_table").indexOf("tbl") < 0, "the table-name field is not a column");
    }

    @Test
    void anIsoTimestampFieldInSecondsBecomesTheTimeIndex() throws Exception {
        start(false, GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.TS_UNIT, "s");
        Map<String, Object> a = new HashMap<>(Map.of("host", "a", "cpu", 1.0, "at", "2024-03-01T10:00:00Z"));
        Map<String, Object> b = new HashMap<>(Map.of("host", "b", "cpu", 2.0, "at", 1_709_287_201L));
        task.put(List.of(rec(0, 0, a), rec(0, 1, b)));
        assertEquals(2, commit(P0).get(P0).offset());
        TableSchema ts = server.schema(TOPIC);
        assertEquals("at", ts.column(ts.timestampIndex()).name());
        assertEquals(DataType.TimestampSecond, ts.column(ts.timestampIndex()).dataType());
        Map<String, Long> byHost = new HashMap<>();
        for (Map<String, Object> r : server.rows(TOPIC)) {
            byHost.put((String) r.get("host"), (Long) r.get("at"));
        }
        assertEquals(Map.of("a", 1_709_287_200L, "b", 1_709_287_201L), byHost);
    }

    @Test
    void aRecordMissingItsTimestampFieldWithoutDlqFailsNamingTheRecord() {
        start(false, GreptimeSinkConfig.TS_FIELD, "at");
        Map<String, Object> v = new HashMap<>(Map.of("host", "a", "cpu", 1.0));
        ConnectException e = org.junit.jupiter.api.Assertions.assertThrows(ConnectException.class, () -> {
            task.put(List.of(rec(1, 42, v)));
            commit(P0, P1);
        });
        String msg = e.getMessage();
        for (String part : List.of("topic=" + TOPIC, "partition=1", "offset=42", "table=" + TOPIC, "at")) {
            assertTrue(msg.contains(part), "message names " + part + ": " + msg);
        }
    }

    /**
     * flush.timeout.ms is documented as the "longest wait for acknowledgements when ... the task stops": with a
     * request the server never answers, stop() cancels it once the flush times out rather than waiting for the
     * request's own deadline (greptimedb.request.timeout.ms, 60 s by default: far beyond Connect's 5 s graceful
     * shutdown). Here the request's timeout and delivery deadline are longer than the hang guard, so stop() returning
     * at all proves it did not wait for them.
     */
    @Test
    void stopWithAHungRequestIsBoundedByFlushTimeoutNotByTheRequestTimeout() throws Exception {
        start(false, GreptimeSinkConfig.FLUSH_TIMEOUT, "300", GreptimeSinkConfig.REQUEST_TIMEOUT, SinkTaskFixture.BEYOND_THE_HANG_GUARD,
                GreptimeSinkConfig.RETRY_DELIVERY, SinkTaskFixture.BEYOND_THE_HANG_GUARD);
        task.put(List.of(metric(0, 0, 1.0)));
        await("first record committed", () -> commit(P0).getOrDefault(P0, new OffsetAndMetadata(0)).offset() == 1);
        server.faults().neverRespond(true);
        task.put(List.of(metric(0, 1, 2.0)));
        dev.sluice.Await.returns("stop() with flush.timeout.ms=300 and a hung request", () -> {
            try {
                task.stop();
            } catch (RuntimeException acceptable) {
                // stop may report what it could not deliver
            }
        });
        task = null;
    }

    /**
     * Four records of one partition, put together for a table that does not exist yet: cpu = 1.5, "x", 2.5, 7.
     * Their rows have three different schemas, so they travel in different batches of the writer. The earliest
     * record of the partition decides the new column's type (README, "Column types on a new table or column"):
     * cpu is Float64, offsets 1 and 3 go to the DLQ, on every one of six fresh tables. Before the sink waited for
     * unanswered rows defining a column differently, the batch that reached the server first decided (runs gave
     * cpu String or Int64 too).
     */
    @Test
    void onANewTableTheEarliestRecordDecidesTheColumnTypeAndLaterConflictsGoToTheDlq() throws Exception {
        List<String> outcomes = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            String table = "mixed" + k;
            Ctx ctx = start(true, GreptimeSinkConfig.FLUSH_INTERVAL, "60000", GreptimeSinkConfig.TABLE_FORMAT, table);
            task.put(List.of(metric(0, 0, 1.5), metric(0, 1, "x"), metric(0, 2, 2.5), metric(0, 3, 7L)));
            assertEquals(4, commit(P0).get(P0).offset(), "every record settled");
            Set<Long> dlq = new HashSet<>(ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
            assertEquals(4, dlq.size() + server.rowCount(table), "each record stored or dead-lettered");
            outcomes.add("run " + k + ": dlq " + dlq + " cpu "
                    + server.schema(table).column(server.schema(table).indexOf("cpu")).dataType());
            task.stop();
            task = null;
        }
        for (String o : outcomes) {
            assertTrue(o.contains("dlq [1, 3] cpu Float64"), "outcomes " + outcomes);
        }
    }

    @Test
    void aDecimalTooWideForItsPrecisionGoesToTheDlqWhileNanAndInfinityAreStored() throws Exception {
        Schema dec = Decimal.builder(1).parameter("connect.decimal.precision", "4").build();
        Schema schema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("d", dec)
                .field("f", Schema.FLOAT64_SCHEMA).build();
        Ctx ctx = start(true);
        List<SinkRecord> recs = new ArrayList<>();
        Object[][] vals = {{"123.4", 1.0}, {"12345.6", 2.0}, {"1.2", Double.NaN}, {"2.5", Double.POSITIVE_INFINITY}};
        for (int i = 0; i < vals.length; i++) {
            Struct s = new Struct(schema).put("host", host(0, i)).put("d", new BigDecimal((String) vals[i][0]))
                    .put("f", vals[i][1]);
            recs.add(new SinkRecord(TOPIC, 0, null, null, schema, s, i, T0 + i, TimestampType.CREATE_TIME));
        }
        task.put(recs);
        assertEquals(4, commit(P0).get(P0).offset());
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.dlqErrors.get(0).getMessage().contains("column=d"), ctx.dlqErrors.get(0).getMessage());
        Map<String, Map<String, Object>> byHost = new HashMap<>();
        for (Map<String, Object> r : server.rows(TOPIC)) {
            byHost.put((String) r.get("host"), r);
        }
        assertEquals(Set.of(host(0, 0), host(0, 2), host(0, 3)), byHost.keySet());
        assertTrue(Double.isNaN((Double) byHost.get(host(0, 2)).get("f")));
        assertEquals(Double.POSITIVE_INFINITY, byHost.get(host(0, 3)).get("f"));
        assertEquals(new DecimalType(4, 1), server.schema(TOPIC).column(server.schema(TOPIC).indexOf("d"))
                .decimalType());
    }

    @Test
    void aServerDownThenBackNeverCommitsAheadAndRedeliveryFromTheRewindStoresEverything() throws Exception {
        Ctx ctx = start(false, GreptimeSinkConfig.FLUSH_TIMEOUT, "200", GreptimeSinkConfig.RETRY_DELIVERY, "1000",
                GreptimeSinkConfig.RETRY_ATTEMPTS, "3");
        // The first write may outlive retry.delivery.timeout.ms on a busy machine: it is redelivered as Connect would.
        ConnectLikeDriver connect = new ConnectLikeDriver(ctx);
        connect.deliver(List.of(metric(0, 0, 1.0)));
        await("first", () -> {
            connect.poll();
            return commit(P0).getOrDefault(P0, new OffsetAndMetadata(0)).offset() == 1;
        });
        server.stop();
        List<SinkRecord> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            all.add(metric(0, i, 1.0 * i));
        }
        List<SinkRecord> pending = new ArrayList<>(all.subList(1, 20));
        boolean resumed = false;
        int retriables = 0;
        boolean done = false;
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!done && System.nanoTime() < deadline) {
            if (!resumed && retriables > 0) { // the outage lasts until it has outlived the retries
                server.resume();
                resumed = true;
            }
            try {
                task.put(pending); // as Connect: redeliver from the rewind after a RetriableException
                pending = List.of();
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                assertCommitCovered(c, Set.of());
                if (!resumed) {
                    assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1, "nothing past 1 while down: " + c);
                }
                done = resumed && c.containsKey(P0) && c.get(P0).offset() == 20;
            } catch (RetriableException e) {
                retriables++;
                Long from = ctx.rewinds.remove(P0);
                assertNotNull(from, "a RetriableException comes with a rewind");
                assertEquals(1L, from, "rewound to the first unstored record");
                pending = new ArrayList<>(all.subList(from.intValue(), 20));
            }
            Thread.sleep(50); // the simulated worker's poll interval: the loop ends on its condition or deadline
        }
        assertTrue(done, "all 20 committed after the server came back");
        assertTrue(retriables > 0, "the outage outlived retry.delivery.timeout.ms and surfaced as retriable");
        assertEquals(20, server.rowCount(TOPIC));
    }

    /**
     * README: "with delete.enabled=true delete the row whose tags and time index the record key holds". With the
     * default time index (the Kafka record timestamp as column ts), the key's field ts (milliseconds) names the
     * row's time index; the tombstone's own, later record timestamp does not (taking it, the delete would hit no
     * row and the offset would be committed silently).
     */
    @Test
    void aTombstoneKeyHoldingTagsAndTheTimeIndexDeletesThatRowWhenTheTimeIndexIsTheRecordTimestamp()
            throws Exception {
        start(false, GreptimeSinkConfig.DELETES, "true");
        task.put(List.of(metric(0, 0, 1.0), metric(0, 1, 2.0)));
        await("2", () -> commit(P0).getOrDefault(P0, new OffsetAndMetadata(0)).offset() == 2);
        Map<String, Object> key = new HashMap<>(Map.of("host", host(0, 0), "ts", T0));
        task.put(List.of(new SinkRecord(TOPIC, 0, null, key, null, null, 2, T0 + 2, TimestampType.CREATE_TIME)));
        assertEquals(3, commit(P0).get(P0).offset());
        assertEquals(Set.of(host(0, 1)), storedHosts(), "the row the key names is deleted");
    }

    /**
     * The other key forms of the same rule: a Struct key with a Connect Timestamp field ts, a Map key with ISO-8601
     * text, and a key without ts, which falls back to the tombstone's own record timestamp (deleting the row only
     * because this tombstone carries the original record's timestamp).
     */
    @Test
    void aTombstoneKeyMayNameTheRecordTimestampAsTimestampOrTextOrLeaveItToTheTombstonesOwnTimestamp()
            throws Exception {
        start(false, GreptimeSinkConfig.DELETES, "true");
        task.put(List.of(metric(0, 0, 1.0), metric(0, 1, 2.0), metric(0, 2, 3.0), metric(0, 3, 4.0)));
        await("4", () -> commit(P0).getOrDefault(P0, new OffsetAndMetadata(0)).offset() == 4);
        Schema keySchema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("ts", Timestamp.SCHEMA)
                .build();
        Struct structKey = new Struct(keySchema).put("host", host(0, 0)).put("ts", new java.util.Date(T0));
        Map<String, Object> textKey = new HashMap<>(Map.of("host", host(0, 1),
                "ts", java.time.Instant.ofEpochMilli(T0 + 1).toString()));
        Map<String, Object> bareKey = new HashMap<>(Map.of("host", host(0, 2)));
        task.put(List.of(
                new SinkRecord(TOPIC, 0, keySchema, structKey, null, null, 4, T0 + 100, TimestampType.CREATE_TIME),
                new SinkRecord(TOPIC, 0, null, textKey, null, null, 5, T0 + 100, TimestampType.CREATE_TIME),
                new SinkRecord(TOPIC, 0, null, bareKey, null, null, 6, T0 + 2, TimestampType.CREATE_TIME)));
        assertEquals(7, commit(P0).get(P0).offset());
        assertEquals(Set.of(host(0, 3)), storedHosts(), "the three rows the keys name are deleted");
    }

    @Test
    void aTombstoneWhoseKeyLacksATagOrIsNullGoesToTheDlqNamingIt() throws Exception {
        Ctx ctx = start(true, GreptimeSinkConfig.DELETES, "true");
        task.put(List.of(metric(0, 0, 1.0), metric(0, 1, 2.0), metric(0, 2, 3.0)));
        await("3", () -> commit(P0).getOrDefault(P0, new OffsetAndMetadata(0)).offset() == 3);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, new HashMap<>(Map.of("ts", T0 + 2)), null, null, 3,
                T0 + 2, TimestampType.CREATE_TIME),
                new SinkRecord(TOPIC, 0, null, null, null, null, 4, T0 + 2, TimestampType.CREATE_TIME)));
        assertEquals(5, commit(P0).get(P0).offset());
        assertEquals(List.of(3L, 4L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.dlqErrors.get(0).getMessage().contains("column=host"), ctx.dlqErrors.get(0).getMessage());
        assertTrue(ctx.dlqErrors.get(1).getMessage().contains("offset=4"), ctx.dlqErrors.get(1).getMessage());
        assertEquals(3, server.rowCount(TOPIC), "nothing deleted");
    }

    @Test
    void aDeadLetterReportThatFailsNeverLetsTheOffsetPassThePoisonRecord() throws Exception {
        Ctx ctx = start(true);
        ctx.failReports = true;
        task.put(List.of(metric(0, 0, 1.5)));
        await("first", () -> commit(P0).getOrDefault(P0, new OffsetAndMetadata(0)).offset() == 1);
        RuntimeException failure = null;
        try {
            task.put(List.of(metric(0, 1, "poison"), metric(0, 2, 2.5)));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                Map<TopicPartition, OffsetAndMetadata> c = commit(P0);
                assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1,
                        "the offset passed a record the DLQ did not take: " + c);
                task.put(List.of());
                Thread.sleep(50); // the simulated worker's poll interval: the loop ends on its condition or deadline
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        assertNotNull(failure, "a record neither stored nor taken by the DLQ fails the task");
        assertTrue(!(failure instanceof RetriableException), failure.toString());
        assertTrue(failure.getMessage().contains("partition=0") && failure.getMessage().contains("offset=1"),
                failure.getMessage());
    }

    @Test
    void aStructTimestampFieldIsTheTimeIndexAndANewStructFieldAddsAColumn() throws Exception {
        Schema v1 = SchemaBuilder.struct().name("m").field("host", Schema.STRING_SCHEMA)
                .field("at", Timestamp.SCHEMA).field("cpu", Schema.FLOAT64_SCHEMA).build();
        Schema v2 = SchemaBuilder.struct().name("m").field("host", Schema.STRING_SCHEMA)
                .field("at", Timestamp.SCHEMA).field("cpu", Schema.FLOAT64_SCHEMA)
                .field("mem", Schema.OPTIONAL_INT32_SCHEMA).build();
        start(false, GreptimeSinkConfig.TS_FIELD, "at");
        Struct a = new Struct(v1).put("host", "a").put("at", new java.util.Date(1_000L)).put("cpu", 1.0);
        Struct b = new Struct(v2).put("host", "b").put("at", new java.util.Date(2_000L)).put("cpu", 2.0)
                .put("mem", 42);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, v1, a, 0, T0, TimestampType.CREATE_TIME)));
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, v2, b, 1, T0, TimestampType.CREATE_TIME)));
        await("2", () -> commit(P0).getOrDefault(P0, new OffsetAndMetadata(0)).offset() == 2);
        TableSchema ts = server.schema(TOPIC);
        assertEquals("at", ts.column(ts.timestampIndex()).name());
        assertEquals(DataType.TimestampMillisecond, ts.column(ts.timestampIndex()).dataType());
        assertEquals(DataType.Int32, ts.column(ts.indexOf("mem")).dataType());
        Map<String, Map<String, Object>> byHost = new HashMap<>();
        for (Map<String, Object> r : server.rows(TOPIC)) {
            byHost.put((String) r.get("host"), r);
        }
        assertEquals(1_000L, byHost.get("a").get("at"));
        assertEquals(null, byHost.get("a").get("mem"));
        assertEquals(42L, byHost.get("b").get("mem"));
        assertEquals(2_000L, byHost.get("b").get("at"));
    }

    /**
     * max.buffered.rows=10, the server hanging: put(30 records) gives up after max.block.ms with
     * RetriableException and rewinds partition 0 (as documented). The server answers again once it has. The driver
     * does what Connect's WorkerSinkTask does: after a RetriableException it retries the same put with the same
     * record objects (the sink takes none of a rewound partition's records from it: the consumer re-reads them),
     * then the consumer, seeked to the rewind offset, delivers the records again as new objects. Expected: all 30
     * stored and offset 30 committed; a record put on partition 1 meanwhile is stored too. (The re-read records
     * must be new objects: the sink rightly skips the retried call's own objects.)
     */
    @Test
    void aFullBufferAgainstAHungServerRewindsAndRedeliveryStoresEverything() throws Exception {
        Ctx ctx = start(false, GreptimeSinkConfig.BUFFER_ROWS, "10", GreptimeSinkConfig.BATCH_ROWS, "10",
                GreptimeSinkConfig.BUFFER_TIMEOUT, "500", GreptimeSinkConfig.FLUSH_TIMEOUT, "200",
                GreptimeSinkConfig.REQUEST_TIMEOUT, "2000", GreptimeSinkConfig.RETRY_DELIVERY, "3000");
        server.faults().neverRespond(true);
        List<SinkRecord> all = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            all.add(metric(0, i, 1.0 * i));
        }
        ConnectLikeDriver connect = new ConnectLikeDriver(ctx);
        connect.deliver(all);
        long start = System.nanoTime();
        boolean sawRetriable = false;
        boolean done = false;
        boolean resumed = false;
        long deadline = start + Duration.ofSeconds(90).toNanos();
        while (!done && System.nanoTime() < deadline) {
            if (!resumed && sawRetriable) { // the server hangs until the put has given up
                server.faults().neverRespond(false);
                resumed = true;
                connect.deliver(List.of(metric(1, 0, 9.0)));
            }
            sawRetriable |= connect.poll();
            Map<TopicPartition, OffsetAndMetadata> c = commit(P0, P1);
            assertCommitCovered(c, Set.of());
            done = resumed && c.containsKey(P0) && c.get(P0).offset() == 30 && c.containsKey(P1)
                    && c.get(P1).offset() == 1;
            Thread.sleep(20); // pacing of the poll loop, as Connect's; the loop ends on the commit, not on time
        }
        assertTrue(sawRetriable, "put() at a full buffer gives up after max.block.ms");
        assertTrue(done, "all 30 records of partition 0 and the one of partition 1 committed after redelivery");
        assertEquals(31, server.rowCount(TOPIC));
    }

    /**
     * Drives the task the way Connect's WorkerSinkTask does around RetriableException: the failed put is retried
     * with the same record objects until it returns; then the consumer, seeked to each rewound offset, re-reads
     * the records from there as new objects.
     */
    private final class ConnectLikeDriver {
        private final Ctx ctx;
        /** Per partition, its records by offset (offset = index), as the broker holds them. */
        private final Map<TopicPartition, List<SinkRecord>> logs = new HashMap<>();
        private final java.util.ArrayDeque<List<SinkRecord>> toPoll = new java.util.ArrayDeque<>();
        private final Map<TopicPartition, Long> seeks = new HashMap<>();
        private List<SinkRecord> retry;

        ConnectLikeDriver(Ctx ctx) {
            this.ctx = ctx;
        }

        /** Appends records (offsets 0, 1, ... of their partition, in order) and lets the consumer read them. */
        void deliver(List<SinkRecord> records) {
            for (SinkRecord r : records) {
                List<SinkRecord> log = logs.computeIfAbsent(new TopicPartition(r.topic(), r.kafkaPartition()),
                        k -> new ArrayList<>());
                assertEquals(log.size(), r.kafkaOffset(), "records are delivered in offset order from 0");
                log.add(r);
            }
            toPoll.add(records);
        }

        /** One iteration of the worker's loop; true when the put threw RetriableException. */
        boolean poll() {
            if (retry == null && !seeks.isEmpty()) {
                // The consumer, seeked back, re-reads each rewound partition from there, as fresh objects.
                List<SinkRecord> again = new ArrayList<>();
                for (Map.Entry<TopicPartition, Long> seek : seeks.entrySet()) {
                    List<SinkRecord> log = logs.get(seek.getKey());
                    for (SinkRecord r : log.subList(seek.getValue().intValue(), log.size())) {
                        again.add(r.newRecord(r.topic(), r.kafkaPartition(), r.keySchema(), r.key(),
                                r.valueSchema(), r.value(), r.timestamp()));
                    }
                }
                seeks.clear();
                toPoll.addFirst(again);
            }
            List<SinkRecord> batch = retry != null ? retry : toPoll.isEmpty() ? List.of() : toPoll.poll();
            try {
                task.put(new ArrayList<>(batch));
                retry = null;
                return false;
            } catch (RetriableException e) {
                assertTrue(!ctx.rewinds.isEmpty(), "a RetriableException here comes with a rewind");
                for (Map.Entry<TopicPartition, Long> rw : ctx.rewinds.entrySet()) {
                    assertCommitCovered(Map.of(rw.getKey(), new OffsetAndMetadata(rw.getValue())), Set.of());
                    seeks.merge(rw.getKey(), rw.getValue(), Math::min);
                }
                ctx.rewinds.clear();
                retry = batch;
                return true;
            }
        }
    }
}
