package dev.sluice.internal.send;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.internal.error.GrpcErrors;
import dev.sluice.write.RetryPolicy;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The send engine against scripted calls (no server): what it sends on which call, when it resends, and that
 * nothing of a replaced call touches the next one.
 */
class SendEngineTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<FakeCall> calls = new CopyOnWriteArrayList<>();
    private final Recorder recorder = new Recorder();
    private final FakeRoute route = new FakeRoute("a", "b");
    private static final RetryPolicy FAST = RetryPolicy.newBuilder().backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build();
    /** How long a wait for the engine to finish may last: reached only when it hangs, never by a slow machine. */
    private static final long HANG_GUARD_SECONDS = dev.sluice.Await.HANG_GUARD.toSeconds();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    /** A call that records what it was sent and is ended by the test. */
    static class FakeCall extends ClientCall<String, String> {
        /** What the engine sent on this call: read while the engine's thread may still be adding to it. */
        final List<String> sent = new CopyOnWriteArrayList<>();
        volatile Listener<String> listener;
        volatile boolean ready = true;
        volatile boolean halfClosed;
        volatile String cancelled;

        @Override
        public void start(Listener<String> responseListener, Metadata headers) {
            listener = responseListener;
        }

        @Override
        public void request(int numMessages) {
        }

        @Override
        public void cancel(String message, Throwable cause) {
            cancelled = message;
            listener.onClose(Status.CANCELLED.withDescription(message), new Metadata());
        }

        @Override
        public void halfClose() {
            halfClosed = true;
        }

        @Override
        public void sendMessage(String message) {
            sent.add(message);
        }

        @Override
        public boolean isReady() {
            return ready;
        }

        void answer(String response) {
            listener.onMessage(response);
        }

        void end(Status status) {
            listener.onClose(status, new Metadata());
        }
    }

    static final class Msg extends SendEngine.Entry<String> {
        final String text;
        volatile boolean released;

        Msg(long id, String text, long deadline) {
            super(id, text.length(), deadline);
            this.text = text;
        }

        @Override
        protected String payload() {
            return text;
        }

        @Override
        protected void release() {
            released = true;
        }
    }

    /** Endpoints by name, each counting what it was told; picked in turn, skipping the one to avoid. */
    static final class FakeRoute implements Route {
        final List<FakeTarget> targets = new ArrayList<>();
        final List<String> picked = new CopyOnWriteArrayList<>();
        private int next;

        FakeRoute(String... names) {
            for (String n : names) {
                targets.add(new FakeTarget(n));
            }
        }

        @Override
        public synchronized Target next(Target avoid) {
            FakeTarget t = targets.get(next++ % targets.size());
            if (t == avoid) {
                t = targets.get(next++ % targets.size());
            }
            picked.add(t.name);
            return t;
        }

        FakeTarget target(String name) {
            return targets.stream().filter(t -> t.name.equals(name)).findFirst().orElseThrow();
        }
    }

    static final class FakeTarget implements Route.Target {
        final String name;
        final java.util.concurrent.atomic.AtomicInteger reached = new java.util.concurrent.atomic.AtomicInteger();
        final List<String> transportFailures = new CopyOnWriteArrayList<>();

        FakeTarget(String name) {
            this.name = name;
        }

        @Override
        public String address() {
            return name;
        }

        @Override
        public io.grpc.Channel channel() {
            return null; // the fake calls need none
        }

        @Override
        public void reached() {
            reached.incrementAndGet();
        }

        @Override
        public void transportFailed(String cause, java.util.function.Supplier<String> next) {
            transportFailures.add(cause + " / " + next.get());
        }
    }

    /** Answers "ack:N" per message; a clean end answers all when {@code wholeCall}. */
    final class Recorder implements SendEngine.Handler<String, Msg>, SendEngine.Responses<String> {
        final List<Msg> failed = new CopyOnWriteArrayList<>();
        final List<Msg> answered = new CopyOnWriteArrayList<>();
        volatile String notResent;
        volatile SendEngine<String, String, Msg> engine;
        volatile boolean wholeCall;
        volatile boolean finished;

        @Override
        public void onResponse(String response, boolean fromCurrentCall) {
            Msg m = engine.ack(Long.parseLong(response.substring(4)));
            if (m != null) {
                answered.add(m);
            }
        }

        @Override
        public SendEngine.Ending ended(Status status, Metadata trailers, String timeout, int unanswered) {
            if (timeout != null) {
                return new SendEngine.Broken(GrpcErrors.local(dev.sluice.write.StatusCode.Grpc.DEADLINE_EXCEEDED, timeout, true, List.of()), true, null);
            }
            if (status.isOk() && (wholeCall || unanswered == 0)) {
                return new SendEngine.Answered(wholeCall);
            }
            Status s = status.isOk() ? Status.UNAVAILABLE : status;
            return new SendEngine.Broken(GrpcErrors.fromThrowable(s.asRuntimeException(), List.of()), true, null);
        }

        @Override
        public void answered(List<Msg> entries) {
            answered.addAll(entries);
        }

        @Override
        public void failed(List<Msg> entries, SendEngine.Broken broken, String why) {
            failed.addAll(entries);
            notResent = why;
        }

        @Override
        public void finished() {
            finished = true;
        }
    }

    private SendEngine<String, String, Msg> engine(RetryPolicy policy, Duration messageTimeout, boolean appendMode,
                                                   BooleanSupplier stopped) {
        return engine(policy, messageTimeout, appendMode, stopped, null);
    }

    /** An engine on the system's clock and a real timer, or on {@code time} when given. */
    private SendEngine<String, String, Msg> engine(RetryPolicy policy, Duration messageTimeout, boolean appendMode,
                                                   BooleanSupplier stopped, ManualTime time) {
        SendEngine.Settings<String> settings = new SendEngine.Settings<>(time != null ? time : timer, policy,
                appendMode, messageTimeout, messageTimeout == null ? Duration.ofSeconds(5) : null, "schema", null,
                stopped, "batch", time != null ? time : System::nanoTime);
        SendEngine<String, String, Msg> e = new SendEngine<>(settings, route, channel -> {
            FakeCall c = new FakeCall();
            calls.add(c);
            return c;
        }, recorder, recorder);
        recorder.engine = e;
        return e;
    }

    private static long in(Duration d) {
        return System.nanoTime() + d.toNanos();
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        dev.sluice.Await.until("the condition", dev.sluice.Await.HANG_GUARD, condition);
    }

    @Test
    void aBrokenCallIsReplacedAndOnlyItsUnansweredMessagesAreResentBehindThePreamble() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofSeconds(30), false, () -> false);
        for (int i = 1; i <= 3; i++) {
            assertTrue(e.submit(new Msg(i, "m" + i, in(Duration.ofMinutes(1)))));
        }
        FakeCall first = calls.get(0);
        assertEquals(List.of("schema", "m1", "m2", "m3"), first.sent);
        first.answer("ack:2");
        first.end(Status.UNAVAILABLE);
        await(() -> calls.size() == 2 && calls.get(1).sent.size() == 3);
        assertEquals(List.of("schema", "m1", "m3"), calls.get(1).sent);
        assertEquals(1, e.reopenings());
        calls.get(1).answer("ack:1");
        calls.get(1).answer("ack:3");
        e.halfClose();
        assertTrue(calls.get(1).halfClosed);
        calls.get(1).end(Status.OK);
        e.done().get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        assertEquals(3, recorder.answered.size());
        assertTrue(recorder.failed.isEmpty());
    }

    @Test
    void aMessageTimerOfAReplacedCallNeitherCancelsNorBurnsTheNextCall() throws Exception {
        // m1's 300 ms timer on the first call is still scheduled when that call breaks at once; the replacement
        // call must survive past it, and m1 is answered there.
        ManualTime time = new ManualTime();
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofMillis(300), false, () -> false, time);
        e.submit(new Msg(1, "m1", time.getAsLong() + Duration.ofMinutes(1).toNanos()));
        calls.get(0).end(Status.UNAVAILABLE);
        time.advance(Duration.ofMillis(10)); // past the backoff (at most 5 ms): the reopening runs
        assertEquals(2, calls.size());
        FakeCall second = calls.get(1);
        time.advance(Duration.ofMillis(150));
        // Re-queued on the second call, m1 has a fresh 300 ms timer: 150 ms into it, the first call's timer
        // (due 300 ms after the first send) is still ahead.
        second.answer("ack:1");
        time.advance(Duration.ofMillis(400)); // past the first call's timer and the second's
        assertNull(second.cancelled, "the replacement call was cancelled by a timer");
        assertEquals(2, calls.size());
        assertEquals(1, recorder.answered.size());
        assertEquals(1, e.reopenings());
    }

    @Test
    void aMessageWithoutAnAnswerInTimeBreaksItsCallAndIsResent() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofMillis(100), false, () -> false);
        e.submit(new Msg(1, "m1", in(Duration.ofMinutes(1))));
        await(() -> calls.size() == 2);
        assertNotNull(calls.get(0).cancelled);
        assertTrue(calls.get(0).cancelled.contains("batch 1 had no answer within 100 ms"), calls.get(0).cancelled);
        assertEquals(List.of("schema", "m1"), calls.get(1).sent);
        calls.get(1).answer("ack:1");
        assertTrue(recorder.failed.isEmpty());
    }

    @Test
    void theAttemptBudgetIsPerMessageNotPerEngineLife() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST.toBuilder().maxAttempts(2).build(), Duration.ofSeconds(30), false, () -> false);
        // Five messages in a row each survive one broken call: a life-long count of 2 would have failed the third.
        for (int i = 1; i <= 5; i++) {
            int n = i;
            e.submit(new Msg(i, "m" + i, in(Duration.ofMinutes(1))));
            FakeCall c = calls.get(calls.size() - 1);
            c.end(Status.UNAVAILABLE);
            await(() -> calls.size() == n * 2 || !recorder.failed.isEmpty());
            calls.get(calls.size() - 1).answer("ack:" + i);
            calls.get(calls.size() - 1).end(Status.OK);
        }
        assertTrue(recorder.failed.isEmpty(), () -> "failed: " + recorder.notResent);
        assertEquals(5, recorder.answered.size());
        assertEquals(5, e.reopenings());
        // A sixth breaks twice: its second break spends its two attempts.
        e.submit(new Msg(6, "m6", in(Duration.ofMinutes(1))));
        calls.get(calls.size() - 1).end(Status.UNAVAILABLE);
        await(() -> calls.size() == 12);
        calls.get(11).end(Status.UNAVAILABLE);
        await(() -> !recorder.failed.isEmpty());
        assertEquals("batch 6 used its 2 attempts", recorder.notResent);
    }

    @Test
    void nothingIsResentAfterAnAmbiguousFailureInAppendMode() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofSeconds(30), true, () -> false);
        Msg m = new Msg(1, "m1", in(Duration.ofMinutes(1)));
        e.submit(m);
        calls.get(0).end(Status.UNAVAILABLE);
        await(() -> recorder.finished);
        assertEquals(List.of(m), recorder.failed);
        assertEquals("append-mode tables are not resent after an ambiguous failure", recorder.notResent);
        assertTrue(m.released);
        assertEquals(1, calls.size());
        assertFalse(e.submit(new Msg(2, "m2", in(Duration.ofMinutes(1)))), "an ended engine takes nothing");
    }

    @Test
    void aMessagePastItsDeliveryDeadlineIsNotResent() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofSeconds(30), false, () -> false);
        e.submit(new Msg(1, "m1", System.nanoTime() - 1));
        calls.get(0).end(Status.UNAVAILABLE);
        await(() -> recorder.finished);
        assertTrue(recorder.notResent.startsWith("the delivery deadline"), recorder.notResent);
    }

    @Test
    void aMessageWhoseCallBreaksBeforeItsDeadlineFailsByThatDeadlineWhateverTheBackoffsJitterDraws() throws Exception {
        // The backoff has full jitter (0..1 s here) and the deadline is half of that away when the call breaks:
        // some draws allow a resend within the deadline, some do not. Whichever it is, the resend waits the backoff
        // it was allowed by, so the message has failed once the clock stands at its deadline.
        RetryPolicy jittered = RetryPolicy.newBuilder().backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)).build();
        for (int trial = 0; trial < 50; trial++) {
            ManualTime time = new ManualTime();
            calls.clear();
            SendEngine<String, String, Msg> e = engine(jittered, Duration.ofSeconds(30), false, () -> false, time);
            Msg m = new Msg(1, "m1", time.getAsLong() + Duration.ofMillis(500).toNanos());
            e.submit(m);
            calls.get(0).end(Status.UNAVAILABLE);
            time.advance(Duration.ofMillis(500));
            assertTrue(recorder.failed.contains(m), "trial " + trial + ": the message is still pending at its"
                    + " delivery deadline (" + e.pendingCount() + " pending, " + e.reopenings() + " reopenings)");
            assertTrue(e.done().isDone(), "trial " + trial + ": the engine ended by the deadline");
        }
    }

    @Test
    void nothingIsResentOnceTheClientStops() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofSeconds(30), false, () -> true);
        e.submit(new Msg(1, "m1", in(Duration.ofMinutes(1))));
        calls.get(0).end(Status.UNAVAILABLE);
        await(() -> recorder.finished);
        assertEquals("the client is shutting down", recorder.notResent);
    }

    @Test
    void messagesWaitForFlowControlAndTheHalfCloseWaitsForThem() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofSeconds(30), false, () -> false);
        e.open();
        FakeCall c = calls.get(0);
        c.ready = false;
        e.submit(new Msg(1, "m1", in(Duration.ofMinutes(1))));
        e.submit(new Msg(2, "m2", in(Duration.ofMinutes(1))));
        e.halfClose();
        assertEquals(List.of("schema"), c.sent, "the preamble went out when the call opened, nothing after");
        assertFalse(c.halfClosed);
        assertFalse(e.awaitRoom(1, 4, Duration.ofMillis(20)), "4 queued bytes fill a 4-byte outbox");
        c.ready = true;
        c.listener.onReady();
        assertEquals(List.of("schema", "m1", "m2"), c.sent);
        assertTrue(c.halfClosed);
        assertTrue(e.awaitRoom(1, 4, Duration.ZERO));
        c.answer("ack:1");
        c.answer("ack:2");
        assertFalse(e.done().isDone(), "finished only once the call ended");
        c.end(Status.OK);
        e.done().get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void aStreamAnsweredAsAWholeIsReplayedWholeAndItsAnswerDeadlineIsBounded() throws Exception {
        recorder.wholeCall = true;
        SendEngine<String, String, Msg> e = engine(FAST, null, false, () -> false);
        e.open();
        e.submit(new Msg(1, "m1", 0));
        e.submit(new Msg(2, "m2", 0));
        calls.get(0).end(Status.UNAVAILABLE);
        await(() -> calls.size() == 2 && calls.get(1).sent.size() >= 3);
        assertEquals(List.of("schema", "m1", "m2"), calls.get(1).sent);
        e.halfClose();
        assertTrue(calls.get(1).halfClosed);
        calls.get(1).end(Status.OK);
        e.done().get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        assertEquals(2, recorder.answered.size());
        assertTrue(recorder.finished);
    }

    @Test
    void abortTakesEveryPendingMessageAndStopsAScheduledReopening() throws Exception {
        ManualTime time = new ManualTime();
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofSeconds(30), false, () -> false, time);
        Msg m = new Msg(1, "m1", time.getAsLong() + Duration.ofMinutes(1).toNanos());
        e.submit(m);
        calls.get(0).end(Status.UNAVAILABLE);
        assertEquals(1, e.reopenings(), "a reopening is scheduled");
        List<Msg> taken = e.abort("closed");
        assertEquals(List.of(m), taken);
        assertTrue(m.released);
        assertTrue(e.done().isDone());
        time.advance(Duration.ofSeconds(1)); // the reopening's time comes, and goes
        assertEquals(1, calls.size(), "the aborted engine opened a call");
        assertEquals(0, e.pendingCount());
    }

    @Test
    void anEmptyStreamWhoseCallBreaksFailsInsteadOfReopeningForever() throws Exception {
        recorder.wholeCall = true;
        SendEngine<String, String, Msg> e = engine(FAST, null, false, () -> false);
        e.open();
        e.halfClose();
        calls.get(0).end(Status.UNAVAILABLE);
        await(() -> recorder.finished);
        assertEquals("it carried nothing to resend", recorder.notResent);
        assertEquals(1, calls.size());
        assertEquals(0, e.reopenings());
    }

    /**
     * A call that ends for good while {@code halfClose()} is returning must not let the engine finish before its
     * handler heard of the failure: a stream or bulk writer reads the failure when the engine finishes, and a finish
     * without it reports success (bulk) or "ended without an answer" (stream) and leaves futures pending. The race
     * is forced many times: the call breaks from another thread the moment the engine half-closes it.
     */
    @Test
    void theEngineFinishesOnlyAfterItsHandlerHeardTheFailureThatEndedIt() throws Exception {
        RetryPolicy once = RetryPolicy.newBuilder().maxAttempts(1).build();
        for (int round = 0; round < 200; round++) {
            List<Msg> failed = new CopyOnWriteArrayList<>();
            java.util.concurrent.CompletableFuture<Integer> failedAtFinish = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.atomic.AtomicReference<SendEngine<String, String, Msg>> ref =
                    new java.util.concurrent.atomic.AtomicReference<>();
            SendEngine.Handler<String, Msg> handler = new SendEngine.Handler<>() {
                @Override
                public SendEngine.Ending ended(Status status, Metadata trailers, String timeout, int unanswered) {
                    return new SendEngine.Broken(GrpcErrors.fromThrowable(Status.UNAVAILABLE.asRuntimeException(),
                            List.of()), true, null);
                }

                @Override
                public void failed(List<Msg> entries, SendEngine.Broken broken, String notResent) {
                    // Slow to take the failure in, as a real path is (logging, metrics): gives an early finish
                    // from the half-closing thread every chance to show.
                    try {
                        ref.get().done().get(10, TimeUnit.MILLISECONDS);
                    } catch (Exception notFinished) {
                        // the expected case
                    }
                    failed.addAll(entries);
                }

                @Override
                public void finished() {
                    failedAtFinish.complete(failed.size());
                }
            };
            SendEngine.Settings<String> settings = new SendEngine.Settings<>(timer, once, false, null,
                    Duration.ofSeconds(5), null, null, () -> false, "message");
            SendEngine<String, String, Msg> e = new SendEngine<>(settings, route, channel -> new FakeCall() {
                @Override
                public void halfClose() {
                    super.halfClose();
                    Thread breaker = new Thread(() -> end(Status.UNAVAILABLE));
                    breaker.start();
                    // Let the breaker queue on the engine's lock before the half-close returns.
                    while (breaker.getState() != Thread.State.BLOCKED && breaker.isAlive()) {
                        Thread.onSpinWait();
                    }
                }
            }, (response, fromCurrentCall) -> { }, handler);
            ref.set(e);
            Msg m = new Msg(1, "m1", 0);
            assertTrue(e.submit(m));
            e.halfClose();
            e.done().get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
            assertEquals(1, failedAtFinish.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS),
                    "round " + round + ": the engine finished before its handler was told the message failed");
        }
    }

    @Test
    void aTransportFailureCountsAgainstItsEndpointAndTheResendGoesToAnother() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofSeconds(30), false, () -> false);
        e.submit(new Msg(1, "m1", in(Duration.ofMinutes(1))));
        calls.get(0).end(Status.UNAVAILABLE.withDescription("Connection refused"));
        await(() -> calls.size() == 2);
        assertEquals(List.of("a", "b"), route.picked, "the resend avoids the endpoint that just failed");
        assertEquals(1, route.target("a").transportFailures.size());
        assertTrue(route.target("a").transportFailures.get(0).contains("sent again"),
                "the endpoint's first failure says what happens next: " + route.target("a").transportFailures);
        calls.get(1).answer("ack:1");
        assertEquals(1, route.target("b").reached.get(), "an answer shows the endpoint alive");
        assertEquals(0, route.target("a").reached.get());
    }

    @Test
    void aServerRefusalShowsTheEndpointAliveAndIsNotCountedAgainstIt() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofSeconds(30), false, () -> false);
        e.submit(new Msg(1, "m1", in(Duration.ofMinutes(1))));
        calls.get(0).end(Status.RESOURCE_EXHAUSTED.withDescription("too many writes"));
        await(() -> calls.size() == 2);
        assertTrue(route.target("a").transportFailures.isEmpty(), "a refusal is not the transport's failure");
        assertEquals(1, route.target("a").reached.get());
    }

    @Test
    void aCallTheEngineCancelsForALateAnswerSaysNothingAboutItsEndpoint() throws Exception {
        SendEngine<String, String, Msg> e = engine(FAST, Duration.ofMillis(50), false, () -> false);
        e.submit(new Msg(1, "m1", in(Duration.ofMinutes(1))));
        await(() -> calls.size() == 2); // the first call was cancelled when m1 had no answer in time
        assertTrue(route.target("a").transportFailures.isEmpty());
        assertEquals(0, route.target("a").reached.get());
        e.abort("the test is over");
    }

    @Test
    void aFailureThatEndsTheEngineTellsTheEndpointThatTheMessagesFail() throws Exception {
        SendEngine<String, String, Msg> e = engine(RetryPolicy.newBuilder().maxAttempts(1).build(),
                Duration.ofSeconds(30), false, () -> false);
        e.submit(new Msg(1, "m1", in(Duration.ofMinutes(1))));
        calls.get(0).end(Status.UNAVAILABLE.withDescription("Connection refused"));
        e.done().get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        assertEquals(1, recorder.failed.size());
        assertTrue(route.target("a").transportFailures.get(0).contains("fail ("),
                "the endpoint hears that nothing is resent: " + route.target("a").transportFailures);
    }
}
