package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The sink task's lifecycle against a healthy or a hung server: preCommit, close and stop are bounded by the flush
 * timeout, stop is safe twice and after a failed start, a stopped task accepts nothing, buffers stay within their
 * bounds, and no thread outlives the task.
 */
class SinkTaskLifecycleTest extends SinkTaskFixture {
    /**
     * preCommit with the server hanging: it waits at most flush.timeout.ms (here 300 ms; the request's timeout and
     * delivery deadline are longer than the hang guard, so preCommit returning at all proves it did not wait for
     * them) and reports nothing past the unanswered records.
     */
    @Test
    void preCommitAgainstAHungServerIsBoundedAndReportsNothingUnstored() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.FLUSH_TIMEOUT, "300", GreptimeSinkConfig.REQUEST_TIMEOUT,
                BEYOND_THE_HANG_GUARD, GreptimeSinkConfig.RETRY_DELIVERY, BEYOND_THE_HANG_GUARD);
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        server.faults().neverRespond(true);
        task.put(List.of(metric(P0, 1, 2.0), metric(P0, 2, 3.0)));
        Map<TopicPartition, OffsetAndMetadata> c = Await.returns("preCommit against a hung server",
                () -> commit(P0, P1));
        assertTrue(!c.containsKey(P0) || c.get(P0).offset() <= 1, "nothing past the unanswered records: " + c);
        assertFalse(storedHosts(TOPIC).contains(host(P0, 1)));
    }

    /**
     * close(partitions) against a hung server returns within about flush.timeout.ms (300 ms), not after the 60 s
     * default request timeout (Connect's rebalance would time out the member otherwise). Here the request's timeout
     * and delivery deadline are longer than the hang guard, so close returning at all proves it did not wait for them.
     */
    @Test
    void closeAgainstAHungServerIsBoundedByFlushTimeout() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.FLUSH_TIMEOUT, "300", GreptimeSinkConfig.REQUEST_TIMEOUT,
                BEYOND_THE_HANG_GUARD, GreptimeSinkConfig.RETRY_DELIVERY, BEYOND_THE_HANG_GUARD);
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        server.faults().neverRespond(true);
        task.put(List.of(metric(P0, 1, 2.0)));
        Await.returns("close(partitions) against a hung server", () -> {
            try {
                task.close(List.of(P0));
            } catch (RuntimeException acceptable) {
                // close may report the partition's undelivered writes
            }
        });
    }

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
        // Stopping the task sends what it held and closes its client: nothing can arrive after it.
        task.stop();
        task = null;
        assertTrue(server.rowCount(TOPIC) - 1 <= 20,
                "the task held " + (server.rowCount(TOPIC) - 1) + " rows with max.buffered.rows=20");
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
                    Thread.sleep(20); // a poll for the threads to end, bounded by the deadline
                }
            } while (!left.isEmpty() && System.nanoTime() < until);
            assertEquals(List.of(), left, "threads the " + path + " task started, alive " + WAIT + " after stop()");
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
}
