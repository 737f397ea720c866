package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import dev.sluice.internal.send.ManualTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class StreamWriterTest {
    @RegisterExtension
    static final TestkitClient KIT = new TestkitClient(GreptimeTestServer.builder(), o -> o.requestTimeout(Duration.ofSeconds(2)));

    static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    static final TableSchema MEM = TableSchema.newBuilder("mem").addTag("host", DataType.String)
            .addField("used", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();



    @BeforeEach
    void clear() {
        KIT.server().clear();
    }

    static Table cpu(int from, int n) {
        Table t = Table.from(CPU);
        for (int i = from; i < from + n; i++) {
            t.addRow("h" + (i % 5), i * 1.0, (long) i);
        }
        return t;
    }

    @Test
    void manyTablesOnOneStreamAreAnsweredOnceWithTheTotal() {
        // a client with the default timeout: the 2 s one of this class's client is for the timeout tests, and a busy
        // machine may take longer to answer, which would replay the stream and record its messages twice
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(KIT.server().endpoint(), "public").build())) {
            StreamWriter<Table, WriteOk> s = db.streamWriter();
            for (int b = 0; b < 50; b++) {
                s.write(cpu(b * 100, 100));
                s.write(Table.from(MEM).addRow("h", (long) b, (long) b));
            }
            WriteOk ok = s.completed().orTimeout(60, TimeUnit.SECONDS).join();
            assertEquals(5_050, ok.affectedRows());
            assertEquals(List.of("cpu", "mem"), ok.tables());
            assertEquals(5_000, KIT.server().rowCount("cpu"));
            assertEquals(50, KIT.server().rowCount("mem"));
            assertEquals(100, KIT.server().requests().stream().filter(r -> r.method().equals("HandleRequests")).count());
        }
    }

    @Test
    void aTableOverFourMebibytesTravelsAsSeveralMessagesAnsweredOnce() {
        TableSchema logs = TableSchema.newBuilder("big_logs").addTag("host", DataType.String)
                .addField("msg", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(logs);
        String text = "y".repeat(2_000);
        for (int i = 0; i < 6_000; i++) {
            t.addRow("h" + (i % 3), text + i, (long) i);
        }
        // a client with the default timeout: the 2 s one of this class's client is for the timeout tests, and a busy
        // machine may take longer to store 12 MB, which would replay the stream and record its parts twice
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(KIT.server().endpoint(), "public").build())) {
            StreamWriter<Table, WriteOk> s = db.streamWriter();
            s.write(t).write(cpu(0, 10));
            assertEquals(2, s.sentMessages(), "counted per table");
            WriteOk ok = s.completed().orTimeout(60, TimeUnit.SECONDS).join();
            assertEquals(6_010, ok.affectedRows());
            assertEquals(6_000, KIT.server().rowCount("big_logs"));
            List<RecordedRequest> parts = KIT.server().requests().stream()
                    .filter(r -> r.method().equals("HandleRequests") && r.tables().equals(List.of("big_logs"))).toList();
            assertTrue(parts.size() >= 3, parts.size() + " messages");
            assertEquals(0, s.replays(), "answered within the default timeout, not replayed");
            assertEquals(6_000, parts.stream().mapToInt(RecordedRequest::rows).sum());
            assertEquals(text + "5999", KIT.server().rows("big_logs").stream().filter(r -> r.get("ts").equals(5_999L))
                    .findFirst().orElseThrow().get("msg"));
        }
    }

    @Test
    void aReplayedStreamResendsEveryPartOfASplitTable() {
        TableSchema logs = TableSchema.newBuilder("big_replay").addTag("host", DataType.String)
                .addField("msg", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(logs);
        for (int i = 0; i < 6_000; i++) {
            t.addRow("h" + (i % 3), "z".repeat(2_000) + i, (long) i);
        }
        KIT.server().faults().failNext(1, StatusCode.StorageUnavailable, "write buffer full");
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter(StreamWriter.Config.newBuilder().replay(true).build(), Context.newBuilder().build());
        s.write(t);
        WriteOk ok = s.completed().orTimeout(60, TimeUnit.SECONDS).join();
        // the client's 2 s answer timeout may replay once more on a loaded machine; each replay carries every message
        assertTrue(s.replays() >= 1, "replayed: " + s.replays());
        assertEquals(6_000, ok.affectedRows(), "the reopened stream carried every part once");
        assertEquals(6_000, KIT.server().rowCount("big_replay"));
    }

    @Test
    void insertsAndDeletesShareAStream() {
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter();
        s.write(cpu(0, 10)).write(cpu(0, 3), WriteOp.Delete);
        assertEquals(13, s.completed().join().affectedRows());
        assertEquals(7, KIT.server().rowCount("cpu"));
    }

    @Test
    void aBrokenStreamReportsTheUnconfirmedTablesAndRefusesLaterWrites() throws Exception {
        KIT.server().faults().failEvery(3, StatusCode.StorageUnavailable, "write buffer full");
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter(StreamWriter.Config.newBuilder().replay(false).build(), Context.newBuilder().build());
        s.write(cpu(0, 1)).write(Table.from(MEM).addRow("h", 1L, 1L)).write(cpu(10, 1));
        CompletionException e = assertThrows(CompletionException.class,
                () -> s.completed().orTimeout(10, TimeUnit.SECONDS).join());
        StreamWriteException swe = (StreamWriteException) e.getCause();
        assertEquals(5000, swe.err().code());
        assertTrue(swe.err().retryable());
        assertEquals(List.of("cpu", "mem", "cpu"), swe.unconfirmedTables());
        StreamWriteException later = assertThrows(StreamWriteException.class, () -> s.write(cpu(20, 1)));
        assertEquals(5000, later.err().code());
        assertEquals(1, KIT.server().rowCount("cpu"), "the message before the failure stays committed");
        KIT.server().faults().reset();
    }

    @Test
    void aReplayingStreamSurvivesAFailureAndDeliversEverythingOnce() throws Exception {
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter(StreamWriter.Config.newBuilder().replay(true).build(), Context.newBuilder().build());
        s.write(cpu(0, 100));
        Await.until("the first message stored", Duration.ofSeconds(60), () -> KIT.server().rowCount("cpu") >= 100);
        KIT.server().faults().failNext(1, StatusCode.StorageUnavailable, "write buffer full");
        s.write(cpu(100, 100));
        s.write(cpu(200, 100));
        WriteOk ok = s.completed().orTimeout(60, TimeUnit.SECONDS).join();
        assertEquals(300, ok.affectedRows(), "the replayed stream carries all three messages");
        // the client's 2 s answer timeout may replay once more on a loaded machine; each replay carries every message
        assertTrue(s.replays() >= 1, "replayed: " + s.replays());
        assertEquals(3, s.sentMessages());
        assertEquals(300, KIT.server().rowCount("cpu"), "the first message, written twice, is stored once");
    }

    @Test
    void withoutReplayAFailureEndsTheStream() {
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter(StreamWriter.Config.newBuilder().replay(false).build(), Context.newBuilder().build());
        KIT.server().faults().failNext(1, StatusCode.StorageUnavailable, "write buffer full");
        s.write(cpu(0, 10));
        assertThrows(CompletionException.class, () -> s.completed().orTimeout(10, TimeUnit.SECONDS).join());
        assertEquals(0, s.replays());
    }

    @Test
    void byDefaultAStreamIsReplayedAfterARetryableFailure() {
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter();
        KIT.server().faults().failNext(1, StatusCode.StorageUnavailable, "write buffer full");
        s.write(cpu(0, 10)).write(cpu(10, 10));
        assertEquals(20, s.completed().orTimeout(60, TimeUnit.SECONDS).join().affectedRows());
        // the client's 2 s answer timeout may replay once more on a loaded machine; each replay carries every message
        assertTrue(s.replays() >= 1, "replayed: " + s.replays());
        assertEquals(20, KIT.server().rowCount("cpu"));
    }

    @Test
    void appendModeStreamsAreNotReplayedByDefault() {
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().hint("append_mode", "true").build());
        KIT.server().faults().failNext(1, StatusCode.StorageUnavailable, "write buffer full");
        s.write(cpu(0, 10));
        assertThrows(CompletionException.class, () -> s.completed().orTimeout(10, TimeUnit.SECONDS).join());
        assertEquals(0, s.replays());
    }

    @Test
    void cancellingAStreamWaitingToBeReplayedCompletesItsFuture() throws Exception {
        // a delivery deadline longer than the hang guard: only the cancel can complete the future within the guard
        Context slowRetry = Context.newBuilder().retryPolicy(RetryPolicy.newBuilder()
                .backoff(Duration.ofSeconds(3), Duration.ofSeconds(3)).deliveryTimeout(Await.BEYOND_THE_HANG_GUARD)
                .build()).build();
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter(StreamWriter.Config.newBuilder().replay(true).build(), slowRetry);
        // Every attempt fails, so the stream is always either waiting on a (jittered) backoff or on a call that
        // will fail: cancelling in either state must complete the future.
        KIT.server().faults().failEvery(1, StatusCode.StorageUnavailable, "write buffer full");
        try {
            s.write(cpu(0, 10));
            CompletableFuture<WriteOk> done = s.completed();
            Await.until("a replay was scheduled", Duration.ofSeconds(60), () -> s.replays() >= 1);
            s.cancel();
            assertThrows(CompletionException.class,
                    () -> done.orTimeout(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS).join());
        } finally {
            KIT.server().faults().reset();
        }
    }

    @Test
    void writesAfterCompletionFail() {
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter();
        s.write(cpu(0, 1));
        s.completed().join();
        assertThrows(StreamWriteException.class, () -> s.write(cpu(1, 1)));
    }

    @Test
    void cancelFailsTheStream() {
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter();
        s.write(cpu(0, 1));
        s.cancel();
        assertThrows(CompletionException.class, () -> s.completed().orTimeout(60, TimeUnit.SECONDS).join());
        assertThrows(StreamWriteException.class, () -> s.write(cpu(1, 1)));
    }

    @Test
    void anUnansweredStreamWithoutReplayFailsByTheTimeout() {
        KIT.server().faults().neverRespond(true);
        try {
            StreamWriter<Table, WriteOk> s = KIT.db().streamWriter(StreamWriter.Config.newBuilder().replay(false).build(), Context.newBuilder().build());
            s.write(cpu(0, 1));
            // the wait is shorter than the default two-minute delivery deadline: failing within it, and without a
            // replay, is failing by the call's timeout
            CompletionException e = assertThrows(CompletionException.class,
                    () -> s.completed().orTimeout(60, TimeUnit.SECONDS).join());
            assertTrue(e.getCause() instanceof StreamWriteException, e.toString());
            assertEquals(0, s.replays(), "a stream without replay is not sent again");
        } finally {
            KIT.server().faults().reset();
        }
    }

    /**
     * On a manual clock (the client's test hook): the 2 s wait for the answer and the backoff between replays pass
     * only when the test moves the clock, so the stream fails at its 5 s delivery deadline however slow the machine,
     * not before it and not a replay later.
     */
    @Test
    void anUnansweredStreamIsReplayedUntilItsDeliveryDeadline() {
        KIT.server().faults().neverRespond(true);
        ManualTime time = new ManualTime();
        GreptimeDB manual = ManualTimeClients.create(GreptimeOptions.newBuilder(KIT.server().endpoint(), "public")
                .requestTimeout(Duration.ofSeconds(2)).build(), time);
        try {
            // Call timeout 2 s, delivery deadline 5 s: a missing answer is retried like any deadline.
            StreamWriter<Table, WriteOk> s = manual.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(5)).build()).build());
            long start = time.getAsLong();
            s.write(cpu(0, 1));
            CompletableFuture<WriteOk> done = s.completed();
            time.advanceUntil(done, Duration.ofMillis(5)); // while the stream waits on its answer or a backoff
            long ms = (time.getAsLong() - start) / 1_000_000;
            CompletionException e = assertThrows(CompletionException.class, done::join);
            assertTrue(e.getCause() instanceof StreamWriteException, e.toString());
            assertTrue(s.replays() >= 1, "the unanswered stream was replayed: " + e.getCause());
            assertTrue(ms >= 5_000, "failed after " + ms + " ms on the clock, before its delivery deadline of 5 s");
            assertTrue(ms <= 5_000 + 2_000, "failed at its 5 s delivery deadline, not a replay later: " + ms
                    + " ms on the clock");
        } finally {
            KIT.server().faults().reset();
            manual.shutdownNow();
        }
    }

    @Test
    void theRateLimitSpacesWrites() {
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter(StreamWriter.Config.newBuilder().maxRowsPerSecond(1_000).build(), Context.newBuilder().build());
        long start = System.nanoTime();
        for (int b = 0; b < 5; b++) {
            s.write(cpu(b * 200, 200));
        }
        assertEquals(1_000, s.completed().join().affectedRows());
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= 700, "1,000 rows at 1,000 rows/s took only " + ms + " ms");
    }

    @Test
    void hintsAndCompressionApplyToTheStream() {
        StreamWriter<Table, WriteOk> s = KIT.db().streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().hint("append_mode", "true").compression(Compression.Zstd).build());
        s.write(cpu(0, 3)).write(cpu(0, 3));
        assertEquals(6, s.completed().join().affectedRows());
        assertEquals(6, KIT.server().rowCount("cpu"), "append mode keeps duplicates");
    }
}
