package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.StreamWriteException;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Black-box checks of the stream writer's delivery contract, against the testkit. */
// A guard against a hang, not a schedule: under load this work takes minutes.
@Timeout(value = 600, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamDeliveryContractTest {
    static final int ROWS = 100;

    static StreamWriteException cause(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        return assertInstanceOf(StreamWriteException.class, e.getCause());
    }

    @Test
    void streamKeepsAcceptingWritesWhileItsOnlyServerIsDownAndStoresEveryRowOnceItReturns() {
        try (Kit kit = new Kit()) {
            TableSchema schema = Kit.schema("s_down");
            Context ctx = Context.newBuilder().retryPolicy(Kit.quick(Integer.MAX_VALUE, Duration.ofSeconds(30))).build();
            StreamWriter<Table, WriteOk> s = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), ctx);
            for (int i = 0; i < 5; i++) {
                s.write(Kit.table(schema, (long) i * ROWS, ROWS));
            }
            kit.server.stop();
            for (int i = 5; i < 10; i++) {
                s.write(Kit.table(schema, (long) i * ROWS, ROWS)); // retryable outage, well within the deadline
            }
            Kit.await("the stream waits out the outage to reopen", Duration.ofSeconds(30), () -> s.replays() >= 1);
            kit.server.resume();
            CompletableFuture<WriteOk> done = s.completed();
            Kit.settle("stream answer", done, Duration.ofSeconds(40));
            assertEquals(10L * ROWS, done.join().affectedRows(), "the answer counts each row once");
            assertEquals(10L * ROWS, kit.server.rowCount("s_down"));
            s.close();
            kit.assertNothingHeld();
        }
    }

    @Test
    void streamAttemptsAreCountedPerStreamSoTwoBreaksPassAndAThirdFailsWithThreeAttempts() {
        try (Kit kit = new Kit()) {
            TableSchema schema = Kit.schema("s_attempts");
            Context ctx = Context.newBuilder().retryPolicy(Kit.quick(3, Duration.ofSeconds(30))).build();
            StreamWriter<Table, WriteOk> ok = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), ctx);
            ok.write(Kit.table(schema, 0, ROWS));
            for (int brk = 1; brk <= 2; brk++) {
                breakAndWrite(kit, ok, schema, (long) brk * ROWS, brk);
            }
            CompletableFuture<WriteOk> done = ok.completed();
            Kit.settle("stream after two breaks", done, Duration.ofSeconds(20));
            assertTrue(done.join().affectedRows() >= 3L * ROWS, "answer " + done.join());
            assertEquals(3L * ROWS, kit.server.rowCount("s_attempts"));

            StreamWriter<Table, WriteOk> spent = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), ctx);
            spent.write(Kit.table(schema, 1000, ROWS));
            for (int brk = 1; brk <= 2; brk++) {
                breakAndWrite(kit, spent, schema, 1000L + (long) brk * ROWS, brk);
            }
            kit.server.faults().failNext(1, StatusCode.RateLimited, "third break");
            spent.write(Kit.table(schema, 2000, 1));
            CompletableFuture<WriteOk> failed = spent.completed();
            Kit.settle("stream after a third break", failed, Duration.ofSeconds(20));
            // The message is built only on failure: getNow on a failed future would throw.
            assertTrue(failed.isCompletedExceptionally(), () -> "a message put on a 4th call with maxAttempts=3: replays="
                    + spent.replays() + ", answer " + failed.getNow(null));
            StreamWriteException e = cause(failed);
            assertTrue(e.retryable(), e.toString());
            assertEquals(2, spent.replays());
            kit.assertNothingHeld();
        }
    }

    /**
     * Breaks the stream once: the server answers the next message with a retryable error, which ends the stream
     * (a restart is not a reliable break: gRPC may carry a call the old server never saw over to the new
     * connection). Then writes until the stream has been reopened {@code want} times (bounded).
     */
    static void breakAndWrite(Kit kit, StreamWriter<Table, WriteOk> s, TableSchema schema, long from, int want) {
        kit.server.faults().failNext(1, StatusCode.RateLimited, "break " + want);
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        long row = from;
        while (s.replays() < want) {
            if (System.nanoTime() > end) {
                throw new AssertionError("stream not reopened " + want + " times within 10 s: " + s.replays());
            }
            s.write(Kit.table(schema, row++, 1));
            Kit.sleep(100);
        }
        s.write(Kit.table(schema, from, ROWS));
    }

    @Test
    void streamWithRetryPolicyNoneFailsAtTheFirstRetryableErrorWithoutReopening() {
        try (Kit kit = new Kit()) {
            TableSchema schema = Kit.schema("s_none");
            StreamWriter<Table, WriteOk> s = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().retryPolicy(RetryPolicy.none()).build());
            kit.server.faults().failNext(1, StatusCode.RateLimited, "rate limited");
            s.write(Kit.table(schema, 0, ROWS));
            CompletableFuture<WriteOk> done = s.completed();
            Kit.settle("stream answer", done, Duration.ofSeconds(10));
            StreamWriteException e = cause(done);
            assertEquals(6001, e.err().code(), e.toString());
            assertTrue(e.retryable());
            assertEquals(0, s.replays());
            long messages = kit.server.requests().stream()
                    .filter(r -> r.method().equals("HandleRequests") && r.tables().contains("s_none")).count();
            assertEquals(1, messages, "nothing resent: " + kit.server.requests());
            assertThrows(StreamWriteException.class, () -> s.write(Kit.table(schema, 0, 1)));
            kit.assertNothingHeld();
        }
    }

    @Test
    void streamWhoseServerAnswersANonRetryableErrorFailsAtOnceAndIsNotReplayed() {
        try (Kit kit = new Kit()) {
            TableSchema schema = Kit.schema("s_invalid");
            StreamWriter<Table, WriteOk> s = kit.db.streamWriter();
            kit.server.faults().failNext(1, StatusCode.InvalidArguments, "bad rows");
            s.write(Kit.table(schema, 0, ROWS));
            s.write(Kit.table(schema, ROWS, ROWS));
            CompletableFuture<WriteOk> done = s.completed();
            Kit.settle("stream answer", done, Duration.ofSeconds(10));
            StreamWriteException e = cause(done);
            assertEquals(1004, e.err().code(), e.toString());
            assertFalse(e.retryable());
            assertEquals(0, s.replays());
            assertTrue(e.unconfirmedTables().contains("s_invalid"), e.unconfirmedTables().toString());
            s.close();
            kit.assertNothingHeld();
        }
    }

    @Test
    void streamCompletedWithZeroMessagesAnswersZeroRows() {
        try (Kit kit = new Kit()) {
            StreamWriter<Table, WriteOk> s = kit.db.streamWriter();
            CompletableFuture<WriteOk> done = s.completed();
            Kit.settle("empty stream", done, Duration.ofSeconds(10));
            assertEquals(0, done.join().affectedRows());
            assertEquals(0, s.sentMessages());
            s.close();
            kit.assertNothingHeld();
        }
    }

    @Test
    void emptyStreamToAHungServerEndsByItsDeadline() {
        try (Kit kit = new Kit(o -> o.requestTimeout(Duration.ofMillis(500)))) {
            kit.server.faults().neverRespond(true);
            StreamWriter<Table, WriteOk> s = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().retryPolicy(Kit.quick(Integer.MAX_VALUE, Duration.ofSeconds(2))).build());
            CompletableFuture<WriteOk> done = s.completed();
            Kit.settle("empty stream behind a hung server", done, Duration.ofSeconds(10));
            s.close();
            kit.server.faults().reset();
            kit.assertNothingHeld();
        }
    }

    @Test
    void streamSplitIntoSeveralMessagesAndBrokenBetweenThemIsReplayedAndCountedOnce() {
        try (Kit kit = new Kit()) {
            TableSchema schema = Kit.schema("s_split");
            int rows = 200_000; // several 4 MiB messages
            StreamWriter<Table, WriteOk> s = kit.db.streamWriter();
            s.write(Kit.table(schema, 0, 10));
            kit.server.faults().failNext(2, StatusCode.RateLimited, "rate limited"); // the big table's first two parts
            s.write(Kit.table(schema, 10, rows));
            CompletableFuture<WriteOk> done = s.completed();
            Kit.settle("stream answer", done, Duration.ofSeconds(60));
            assertEquals(rows + 10L, done.join().affectedRows());
            assertEquals(rows + 10L, kit.server.rowCount("s_split"));
            assertTrue(s.replays() >= 1);
            s.close();
            kit.assertNothingHeld();
        }
    }

    @Test
    void streamWriteWaitingOnItsRateLimitIsReleasedWhenAnotherThreadCancels() throws Exception {
        try (Kit kit = new Kit()) {
            TableSchema schema = Kit.schema("s_rate_cancel");
            StreamWriter<Table, WriteOk> s = kit.db.streamWriter(StreamWriter.Config.newBuilder().maxRowsPerSecond(10).build(), Context.newBuilder().build());
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread producer = new Thread(() -> {
                try {
                    for (int i = 0; i < 5; i++) {
                        s.write(Kit.table(schema, (long) i * ROWS, ROWS)); // 100 rows at 10 rows/s: ~10 s each
                    }
                } catch (Throwable t) {
                    thrown.set(t);
                }
            }, "stream-producer");
            producer.start();
            Kit.await("the write held by the rate limit", Duration.ofSeconds(30), () -> Kit.waitingIn(producer, "write"));
            s.cancel();
            producer.join(5000);
            assertFalse(producer.isAlive(), "write still waiting on the rate limit 5 s after cancel()");
            assertInstanceOf(StreamWriteException.class, thrown.get());
            Kit.settle("cancelled stream", s.completed(), Duration.ofSeconds(5));
            kit.assertNothingHeld();
        }
    }

    @Test
    void streamWriteBlockedOnAFullSendBufferWhileTheServerIsDownIsReleasedByCancel() throws Exception {
        try (Kit kit = new Kit(o -> o.maxInFlightBytes(4L << 20).requestTimeout(Duration.ofSeconds(30)))) {
            TableSchema schema = Kit.schema("s_full_cancel");
            StreamWriter<Table, WriteOk> s = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().retryPolicy(Kit.quick(Integer.MAX_VALUE, Duration.ofSeconds(60))).build());
            s.write(Kit.table(schema, 0, 10));
            kit.server.stop();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread producer = new Thread(() -> {
                try {
                    for (int i = 0; i < 1000; i++) {
                        s.write(Kit.table(schema, 100L + (long) i * 10_000, 10_000)); // ~0.5 MB each
                    }
                } catch (Throwable t) {
                    thrown.set(t);
                }
            }, "stream-producer");
            producer.start();
            // blocked on the full buffer, or refused by the byte budget: cancel() must end either
            Kit.await("the write blocked on the full send buffer", Duration.ofSeconds(30),
                    () -> Kit.waitingIn(producer, "write") || !producer.isAlive());
            s.cancel();
            producer.join(5000);
            assertFalse(producer.isAlive(), "write still blocked 5 s after cancel()");
            Kit.settle("cancelled stream", s.completed(), Duration.ofSeconds(5));
            assertTrue(s.completed().isCompletedExceptionally());
            kit.server.resume();
            kit.assertNothingHeld();
        }
    }

    @Test
    void streamClosedFromAnotherThreadDuringAReopenBackoffFailsPromptlyAndHoldsNothing() throws Exception {
        try (Kit kit = new Kit()) {
            TableSchema schema = Kit.schema("s_backoff_close");
            RetryPolicy slow = RetryPolicy.newBuilder().backoff(Duration.ofSeconds(20), Duration.ofSeconds(20))
                    .deliveryTimeout(Duration.ofSeconds(60)).build();
            StreamWriter<Table, WriteOk> s = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().retryPolicy(slow).build());
            s.write(Kit.table(schema, 0, ROWS));
            kit.server.faults().failNext(1, StatusCode.RateLimited, "rate limited");
            s.write(Kit.table(schema, ROWS, ROWS));
            CompletableFuture<WriteOk> done = s.completed();
            Kit.await("the stream in its reopen backoff", Duration.ofSeconds(30), () -> s.replays() >= 1);
            Thread closer = new Thread(s::close, "stream-closer");
            closer.start();
            closer.join(5000);
            assertFalse(closer.isAlive());
            // completed() was called, so close() leaves the stream to finish: the answer comes within the deadline
            Kit.settle("stream answer", done, Duration.ofSeconds(60));
            if (!done.isCompletedExceptionally()) {
                assertEquals(2L * ROWS, done.join().affectedRows());
                assertEquals(2L * ROWS, kit.server.rowCount("s_backoff_close"));
            }
            kit.assertNothingHeld();
        }
    }

    @Test
    void shutdownGracefullyWithStreamsInEveryStateLeavesNoFuturePendingAndNoSluiceThread() throws Exception {
        long threadsBefore = Kit.sluiceThreads();
        Kit kit = new Kit();
        CompletableFuture<WriteOk> open;
        CompletableFuture<WriteOk> backingOff;
        CompletableFuture<WriteOk> hung;
        try {
            TableSchema schema = Kit.schema("s_shutdown");
            StreamWriter<Table, WriteOk> a = kit.db.streamWriter();
            a.write(Kit.table(schema, 0, ROWS));
            StreamWriter<Table, WriteOk> b = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().retryPolicy(
                    RetryPolicy.newBuilder().backoff(Duration.ofSeconds(30), Duration.ofSeconds(30)).build()).build());
            kit.server.faults().failNext(1, StatusCode.RateLimited, "rate limited");
            b.write(Kit.table(schema, ROWS, ROWS));
            backingOff = b.completed();
            // the injected error breaks whichever open stream the server reads next: that one backs off 30 s
            Kit.await("a stream in its reopen backoff", Duration.ofSeconds(30), () -> a.replays() + b.replays() >= 1);
            kit.server.faults().neverRespond(true);
            StreamWriter<Table, WriteOk> c = kit.db.streamWriter();
            c.write(Kit.table(schema, 2L * ROWS, ROWS));
            hung = c.completed();
            open = a.completed();
            kit.db.shutdownGracefully(Duration.ofSeconds(2));
            Kit.settle("stream a", open, Duration.ofSeconds(5));
            Kit.settle("stream in backoff", backingOff, Duration.ofSeconds(5));
            Kit.settle("hung stream", hung, Duration.ofSeconds(5));
        } finally {
            kit.server.close();
        }
        Kit.await("no sluice- thread alive (" + Kit.sluiceThreads() + ")", Duration.ofSeconds(10),
                () -> Kit.sluiceThreads() <= threadsBefore);
    }
}
