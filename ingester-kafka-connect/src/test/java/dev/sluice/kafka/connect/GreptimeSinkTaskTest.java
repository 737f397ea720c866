package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.write.StatusCode;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The task against the testkit, driven as Connect's worker drives it. */
class GreptimeSinkTaskTest {
    private static final String TOPIC = "cpu";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private GreptimeTestServer server;
    private GreptimeSinkTask task;

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
                // a test that failed the task already
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
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private FakeContext start(boolean dlq, String... kv) {
        FakeContext ctx = new FakeContext(dlq);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(props(kv));
        task.open(List.of(P0, P1));
        return ctx;
    }

    static SinkRecord rec(int partition, long offset, Object value) {
        return new SinkRecord(TOPIC, partition, null, null, null, value, offset, 1_700_000_000_000L + offset,
                TimestampType.CREATE_TIME);
    }

    static Map<String, Object> row(String host, Object cpu) {
        Map<String, Object> m = new HashMap<>();
        m.put("host", host);
        m.put("cpu", cpu);
        return m;
    }

    private static void await(String what, BooleanSupplier cond) {
        Await.until(what, Duration.ofSeconds(60), cond);
    }

    /** Calls put with no records, as Connect's worker does between polls, until one throws (the test fails if none does). */
    private void putUntilOneThrows(String what) {
        Await.until(what, Duration.ofSeconds(60), () -> {
            task.put(List.of());
            return false;
        });
    }

    private Map<TopicPartition, OffsetAndMetadata> commit() {
        Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
        current.put(P0, new OffsetAndMetadata(0));
        current.put(P1, new OffsetAndMetadata(0));
        return task.preCommit(current);
    }

    @Test
    void recordsAreStoredAndCommittedOnlyOnceAcknowledged() throws Exception {
        start(false, GreptimeSinkConfig.FLUSH_TIMEOUT, "100");
        // The server stores each write and holds its answer until released.
        server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER);
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            batch.add(rec(i % 2, i / 2, row("h" + i, i * 0.5)));
        }
        task.put(batch);
        // No answer comes before release, so a preCommit that returns waited flush.timeout.ms, not for the answer
        // (the bound is reached only if it waits for the answer).
        Map<TopicPartition, OffsetAndMetadata> first = CompletableFuture.supplyAsync(this::commit)
                .get(60, TimeUnit.SECONDS);
        assertTrue(first.isEmpty(), "nothing is acknowledged while the server holds the answer");
        server.faults().awaitHeld(1, Duration.ofSeconds(60));
        assertTrue(commit().isEmpty(), "nothing is acknowledged while the server holds the answer");
        server.faults().release();
        await("100 rows stored", () -> server.rowCount(TOPIC) == 100);
        await("offsets committable", () -> commit().size() == 2);
        Map<TopicPartition, OffsetAndMetadata> c = commit();
        assertEquals(50, c.get(P0).offset());
        assertEquals(50, c.get(P1).offset());
    }

    @Test
    void preCommitFlushesSoTheCommitCoversWhatWasPut() {
        start(false, GreptimeSinkConfig.FLUSH_INTERVAL, "60000");
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(rec(0, i, row("h" + i, 1.0)));
        }
        task.put(batch);
        assertEquals(10, commit().get(P0).offset(), "the commit waited for the lingering batch");
        assertEquals(10, server.rowCount(TOPIC));
    }

    @Test
    void anOffsetIsNeverCommittedPastAnUnsettledEarlierRecord() throws Exception {
        FakeContext ctx = start(true);
        ctx.reporter.hold = true;
        List<SinkRecord> batch = new ArrayList<>();
        batch.add(rec(0, 0, row("a", 1.0)));
        batch.add(rec(0, 1, "not a map"));         // to the DLQ; its report stays unacknowledged
        batch.add(rec(0, 2, row("b", 2.0)));
        task.put(batch);
        await("good rows stored", () -> server.rowCount(TOPIC) == 2);
        await("first record committable", () -> commit().containsKey(P0));
        assertEquals(1, commit().get(P0).offset(), "offset 2 is stored but offset 1 is still being reported");
        ctx.reporter.futures.get(0).complete(null);
        assertEquals(3, commit().get(P0).offset());
    }

    @Test
    void aTypeConflictSendsOnlyTheBadRecordsToTheDlq() throws Exception {
        FakeContext ctx = start(true);
        task.put(List.of(rec(0, 0, row("seed", 0.5))));
        await("table created", () -> server.rowCount(TOPIC) == 1);
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            // Every 10th record carries cpu as text: the table's cpu column is FLOAT64.
            batch.add(rec(0, i, row("h" + i, i % 10 == 0 ? (Object) ("x" + i) : (Object) (i * 1.0))));
        }
        task.put(batch);
        await("all settled", () -> commit().containsKey(P0) && commit().get(P0).offset() == 51);
        assertEquals(46, server.rowCount(TOPIC));
        assertEquals(5, ctx.reporter.records.size());
        Set<Long> offsets = new HashSet<>();
        for (SinkRecord r : ctx.reporter.records) {
            offsets.add(r.kafkaOffset());
        }
        assertEquals(Set.of(10L, 20L, 30L, 40L, 50L), offsets);
        RecordRejectedException e = (RecordRejectedException) ctx.reporter.errors.get(0);
        assertEquals(TOPIC, e.topic());
        assertEquals("cpu", e.table());
        assertEquals("cpu", e.column());
        assertTrue(e.getMessage().contains("topic=cpu partition=0 offset=10 table=cpu column=cpu"), e.getMessage());
    }

    @Test
    void withoutADlqABadRecordFailsTheTaskNamingIt() throws Exception {
        start(false);
        task.put(List.of(rec(1, 0, row("seed", 0.5))));
        await("table created", () -> server.rowCount(TOPIC) == 1);
        task.put(List.of(rec(1, 1, row("h", "text"))));
        ConnectException e = assertThrows(ConnectException.class,
                () -> putUntilOneThrows("a put reports the refused record"));
        assertTrue(e.getMessage().contains("topic=cpu partition=1 offset=1 table=cpu column=cpu"), e.getMessage());
        assertTrue(e.getMessage().contains("dead-letter"), e.getMessage());
        assertFalse(e instanceof RetriableException);
    }

    @Test
    void aRecordTheMapperRefusesNamesTopicPartitionOffsetTableAndColumn() {
        FakeContext ctx = start(true, GreptimeSinkConfig.TS_FIELD, "at");
        task.put(List.of(rec(0, 4, row("h", 1.0))));
        RecordRejectedException e = (RecordRejectedException) ctx.reporter.errors.get(0);
        assertEquals("record topic=cpu partition=0 offset=4 table=cpu column=at: the record has no field 'at' for the"
                + " time index (timestamp.field)", e.getMessage());
        assertEquals(5, commit().get(P0).offset());
    }

    @Test
    void aRetryableFailureOutlivingRetriesRewindsAndRedelivers() throws Exception {
        FakeContext ctx = start(true, GreptimeSinkConfig.RETRY_ATTEMPTS, "1", GreptimeSinkConfig.REDELIVERY_BACKOFF, "50");
        List<SinkRecord> first = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            first.add(rec(0, i, row("h" + i, 1.0)));
        }
        server.faults().failNext(1, StatusCode.RateLimited, "slow down");
        task.put(first);
        // Connect keeps calling put, with no records when there are none; the failure surfaces in one of them.
        RetriableException e = assertThrows(RetriableException.class,
                () -> putUntilOneThrows("a put reports the failure that outlived the retries"));
        assertTrue(e.getMessage().contains("cpu-0=0"), e.getMessage());
        assertEquals(Map.of(P0, 0L), ctx.rewinds);
        assertEquals(50, ctx.timeout);
        assertFalse(commit().containsKey(P0), "nothing of the failed partition is committable");
        task.put(List.of()); // Connect redelivers the batch that failed (empty here)
        // Then the consumer re-reads partition 0 from the rewound offset.
        List<SinkRecord> reread = new ArrayList<>(first);
        reread.add(rec(0, 20, row("h20", 1.0)));
        reread.add(rec(1, 0, row("p1", 1.0)));
        task.put(reread);
        await("all stored", () -> server.rowCount(TOPIC) == 22);
        await("committed", () -> commit().size() == 2 && commit().get(P0).offset() == 21);
        assertTrue(ctx.reporter.records.isEmpty());
    }

    @Test
    void aFailedBatchOfAClosedPartitionIsLeftToItsNextOwner() throws Exception {
        FakeContext ctx = start(true, GreptimeSinkConfig.RETRY_ATTEMPTS, "1");
        server.faults().failNext(1, StatusCode.RateLimited, "slow down");
        task.put(List.of(rec(0, 0, row("a", 1.0)), rec(0, 1, row("b", 1.0))));
        task.close(List.of(P0)); // waits for the failed answer, then hands partition 0 over
        task.put(List.of(rec(1, 0, row("c", 1.0))));
        await("partition 1 stored", () -> server.rowCount(TOPIC) == 1);
        assertTrue(ctx.rewinds.isEmpty(), "nothing to rewind: " + ctx.rewinds);
        assertFalse(commit().containsKey(P0));
    }

    @Test
    void aFullBufferRewindsTheWholePutInsteadOfWaitingForever() throws Exception {
        FakeContext ctx = start(true, GreptimeSinkConfig.BATCH_ROWS, "2", GreptimeSinkConfig.BUFFER_ROWS, "4",
                GreptimeSinkConfig.BUFFER_TIMEOUT, "100", GreptimeSinkConfig.IN_FLIGHT, "1");
        server.faults().hold(Faults.HoldPoint.BEFORE_STORE); // no answer frees the buffer during the put
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(rec(i % 2, i / 2, row("h" + i, 1.0)));
        }
        assertThrows(RetriableException.class, () -> task.put(batch));
        assertEquals(Map.of(P0, 0L, P1, 0L), ctx.rewinds);
        server.faults().release();
        task.put(batch); // redelivered: skipped, the consumer re-reads
        await("the rows taken before the buffer filled answered", () -> server.rowCount(TOPIC) == 4);
        task.put(batch); // re-read
        await("all stored", () -> server.rowCount(TOPIC) == 10);
        await("committed", () -> commit().size() == 2 && commit().get(P0).offset() == 5 && commit().get(P1).offset() == 5);
    }

    @Test
    void tombstonesAreSkippedByDefaultAndDeleteWhenEnabled() throws Exception {
        start(false);
        task.put(List.of(rec(0, 0, row("h", 1.0)), rec(0, 1, null)));
        await("committed", () -> commit().containsKey(P0) && commit().get(P0).offset() == 2);
        assertEquals(1, server.rowCount(TOPIC));
        task.stop();

        FakeContext ctx = new FakeContext(false);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(props(GreptimeSinkConfig.DELETES, "true", GreptimeSinkConfig.TS_FIELD, "t"));
        task.open(List.of(P0, P1));
        Map<String, Object> v = row("d", 1.0);
        v.put("t", 5L);
        task.put(List.of(new SinkRecord("del", 0, null, null, null, v, 0, null, TimestampType.NO_TIMESTAMP_TYPE)));
        await("row stored", () -> server.rowCount("del") == 1);
        Map<String, Object> key = new HashMap<>();
        key.put("host", "d");
        key.put("t", 5L);
        task.put(List.of(new SinkRecord("del", 0, null, key, null, null, 1, null, TimestampType.NO_TIMESTAMP_TYPE)));
        task.preCommit(Map.of()); // a held tombstone is sent, after the writes before it, before offsets are committed
        assertEquals(0, server.rowCount("del"));
        // A tombstone for a table that was never created deletes nothing and is committed.
        task.put(List.of(new SinkRecord("never", 0, null, key, null, null, 0, null, TimestampType.NO_TIMESTAMP_TYPE)));
        Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
        current.put(new TopicPartition("never", 0), new OffsetAndMetadata(0));
        assertEquals(1, task.preCommit(current).get(new TopicPartition("never", 0)).offset());
    }

    @Test
    void stopFlushesAndLeavesNoClientThreads() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        start(false, GreptimeSinkConfig.FLUSH_INTERVAL, "60000");
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            batch.add(rec(0, i, row("h" + i, 1.0)));
        }
        task.put(batch);
        task.close(List.of(P0, P1));
        assertEquals(30, server.rowCount(TOPIC), "close(partitions) flushed what was buffered");
        task.stop();
        task = null;
        await("client threads gone", () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && !before.contains(t) && t.getName().startsWith("sluice-")
                        && !t.getName().contains("testkit")));
    }

    @Test
    void taskMetricsShowTheSinksCountersAndSluicesMeters() throws Exception {
        FakeContext ctx = new FakeContext(true);
        ctx.metrics = new java.util.concurrent.ConcurrentHashMap<>();
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(props());
        task.open(List.of(P0));
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(rec(0, i, i == 7 ? "bad" : row("h" + i, 1.0)));
        }
        batch.add(rec(0, 20, null));
        task.put(batch);
        await("stored", () -> server.rowCount(TOPIC) == 19);
        await("settled", () -> commit().get(P0) != null && commit().get(P0).offset() == 21);
        assertEquals(21, ctx.gauge("records-received"));
        assertEquals(19, ctx.gauge("records-stored"));
        assertEquals(1, ctx.gauge("records-dead-lettered"));
        assertEquals(1, ctx.gauge("tombstones-skipped"));
        assertEquals(19, ctx.gauge("sluice-write-rows"), "Sluice's Micrometer meter, bridged");
        assertTrue(ctx.gauge("sluice-write-bytes") > 0);
        task.stop();
        task = null;
        assertTrue(ctx.metrics.isEmpty(), "stop removes the task's metrics: " + ctx.metrics.keySet());
    }

    /**
     * Connect restarts a task whose previous instance did not stop within task.shutdown.graceful.timeout.ms while
     * that instance, cancelled, still holds its metrics in the worker's registry. The new instance used to fail at
     * start ("A metric named ... already exists"), which left the task FAILED after an abrupt restart; it now
     * starts, stores records, and publishes its metrics once the old instance has stopped.
     */
    @Test
    void aRestartedTaskStartsWhileItsCancelledPredecessorStillHoldsTheMetricNames() throws Exception {
        try (org.apache.kafka.common.metrics.Metrics registry = new org.apache.kafka.common.metrics.Metrics()) {
            Map<String, String> tags = Map.of("connector", "restarted", "task", "0");
            FakeContext oldCtx = new FakeContext(false);
            oldCtx.workerMetrics = new org.apache.kafka.common.metrics.internals.PluginMetricsImpl(registry, tags);
            GreptimeSinkTask old = new GreptimeSinkTask();
            old.initialize(oldCtx);
            old.start(props());
            FakeContext ctx = new FakeContext(false);
            ctx.workerMetrics = new org.apache.kafka.common.metrics.internals.PluginMetricsImpl(registry, tags);
            task = new GreptimeSinkTask();
            task.initialize(ctx);
            task.start(props()); // threw IllegalArgumentException before
            task.open(List.of(P0));
            task.put(List.of(rec(0, 0, row("h0", 1.0))));
            assertEquals(1, commit().get(P0).offset());
            old.stop();
            commit();
            org.apache.kafka.common.MetricName stored = ctx.workerMetrics.metricName("records-stored", "",
                    new java.util.LinkedHashMap<>());
            var metric = registry.metric(stored);
            assertTrue(metric != null, "the new instance published its metrics once the old one let go");
            assertEquals(1.0, ((Number) metric.metricValue()).doubleValue());
        }
    }

    @Test
    void structRecordsOfEveryTypeAreStoredWithTheirGreptimeTypes() throws Exception {
        start(false);
        org.apache.kafka.connect.data.Schema s = org.apache.kafka.connect.data.SchemaBuilder.struct()
                .field("host", org.apache.kafka.connect.data.Schema.STRING_SCHEMA)
                .field("i8", org.apache.kafka.connect.data.Schema.INT8_SCHEMA)
                .field("i64", org.apache.kafka.connect.data.Schema.INT64_SCHEMA)
                .field("f32", org.apache.kafka.connect.data.Schema.FLOAT32_SCHEMA)
                .field("ok", org.apache.kafka.connect.data.Schema.BOOLEAN_SCHEMA)
                .field("raw", org.apache.kafka.connect.data.Schema.BYTES_SCHEMA)
                .field("doc", org.apache.kafka.connect.data.SchemaBuilder.map(
                        org.apache.kafka.connect.data.Schema.STRING_SCHEMA,
                        org.apache.kafka.connect.data.Schema.INT32_SCHEMA).build())
                .field("day", org.apache.kafka.connect.data.Date.SCHEMA)
                .field("tod", org.apache.kafka.connect.data.Time.SCHEMA)
                .field("at", org.apache.kafka.connect.data.Timestamp.SCHEMA)
                .field("price", org.apache.kafka.connect.data.Decimal.schema(2))
                .build();
        org.apache.kafka.connect.data.Struct v = new org.apache.kafka.connect.data.Struct(s).put("host", "h")
                .put("i8", (byte) 7).put("i64", 1L << 40).put("f32", 0.5f).put("ok", true)
                .put("raw", new byte[] {1, 2}).put("doc", Map.of("n", 1))
                .put("day", new java.util.Date(20_000L * 86_400_000L)).put("tod", new java.util.Date(61_000L))
                .put("at", new java.util.Date(1_700_000_000_000L)).put("price", new java.math.BigDecimal("9.99"));
        task.put(List.of(new SinkRecord("typed", 0, null, null, s, v, 0, 1_700_000_000_500L,
                TimestampType.CREATE_TIME)));
        await("stored", () -> server.rowCount("typed") == 1);
        dev.sluice.data.TableSchema t = server.schema("typed");
        Map<String, dev.sluice.data.DataType> types = new HashMap<>();
        for (dev.sluice.data.TableSchema.Column c : t.columns()) {
            types.put(c.name(), c.dataType());
        }
        assertEquals(dev.sluice.data.DataType.Int8, types.get("i8"));
        assertEquals(dev.sluice.data.DataType.Int64, types.get("i64"));
        assertEquals(dev.sluice.data.DataType.Float32, types.get("f32"));
        assertEquals(dev.sluice.data.DataType.Bool, types.get("ok"));
        assertEquals(dev.sluice.data.DataType.Binary, types.get("raw"));
        assertEquals(dev.sluice.data.DataType.Json, types.get("doc"));
        assertEquals(dev.sluice.data.DataType.Date, types.get("day"));
        assertEquals(dev.sluice.data.DataType.TimeMillisecond, types.get("tod"));
        assertEquals(dev.sluice.data.DataType.TimestampMillisecond, types.get("at"));
        assertEquals(dev.sluice.data.DataType.Decimal128, types.get("price"));
        assertEquals(new dev.sluice.data.DecimalType(38, 2), t.column(t.indexOf("price")).decimalType());
        assertEquals(dev.sluice.data.SemanticType.Tag, t.column(t.indexOf("host")).semanticType());
        assertEquals(dev.sluice.data.SemanticType.Timestamp, t.column(t.indexOf("ts")).semanticType());
        Map<String, Object> row = server.rows("typed").get(0);
        assertEquals(java.time.LocalDate.ofEpochDay(20_000), row.get("day"));
        assertEquals(61_000L, row.get("tod"));
        assertEquals(1_700_000_000_000L, row.get("at"));
        assertEquals(1_700_000_000_500L, row.get("ts"));
        assertEquals(new java.math.BigDecimal("9.99"), row.get("price"));
        assertEquals("{\"n\":1}", row.get("doc"));
    }

    @Test
    void aValueThatDoesNotFitItsColumnIsRefusedNamingTheColumn() {
        FakeContext ctx = start(true, GreptimeSinkConfig.COLUMN_TYPES, "cpu:Int8");
        task.put(List.of(rec(1, 3, row("h", 1000L))));
        RecordRejectedException e = (RecordRejectedException) ctx.reporter.errors.get(0);
        assertEquals("cpu", e.column());
        assertTrue(e.getMessage().startsWith("record topic=cpu partition=1 offset=3 table=cpu column=cpu: "),
                e.getMessage());
    }

    @Test
    void theBulkPathStoresEveryRecord() throws Exception {
        start(false, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.BATCH_ROWS, "100");
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            batch.add(rec(i % 2, i / 2, row("h" + i, i * 0.25)));
        }
        task.put(batch);
        await("stored over bulk", () -> {
            task.put(List.of());
            return server.rowCount(TOPIC) == 1_000;
        });
        await("committed", () -> commit().size() == 2 && commit().get(P0).offset() == 500
                && commit().get(P1).offset() == 500);
    }

    @Test
    void connectorHandsEveryTaskTheSameSettings() {
        GreptimeSinkConnector c = new GreptimeSinkConnector();
        c.start(props(GreptimeSinkConfig.HINTS, "append_mode=true"));
        List<Map<String, String>> configs = c.taskConfigs(3);
        assertEquals(3, configs.size());
        assertEquals(server.endpoint(), configs.get(2).get(GreptimeSinkConfig.ENDPOINTS));
        assertEquals(GreptimeSinkTask.class, c.taskClass());
        assertNotNull(c.version());
    }
}
