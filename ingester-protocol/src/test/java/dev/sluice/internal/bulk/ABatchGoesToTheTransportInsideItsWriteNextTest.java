package dev.sluice.internal.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BatchGuard;
import dev.sluice.internal.bulk.spi.BulkAnswer;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.TableCodec;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.internal.send.ManualTime;
import dev.sluice.internal.send.Route;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.write.Compression;
import dev.sluice.write.RetryPolicy;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Batches of a thousand rows are larger than gRPC's default ready threshold (32 KiB of unwritten bytes). A batch
 * that found the stream not ready would wait for gRPC's ready signal: a hop through another thread for every batch.
 * Each batch reaches gRPC inside its own {@code writeNext()}, however much of the earlier ones the transport has still
 * to write and whether or not their answers are in.
 */
class ABatchGoesToTheTransportInsideItsWriteNextTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("inside_write_next")
            .addTag("host", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
    /** About the size of a thousand-row batch of a few columns. */
    private static final int BATCH_BYTES = 100_000;
    /** What gRPC holds a stream ready below when the call does not say otherwise. */
    private static final int GRPC_DEFAULT_ON_READY_BYTES = 32 * 1024;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    /**
     * A call whose transport writes nothing: every message stays queued, and the call is ready, as gRPC's own is,
     * while fewer bytes than the call's ready threshold are queued.
     */
    static final class StalledCall extends ClientCall<BulkMessage, BulkAnswer> {
        final List<Integer> sent = new CopyOnWriteArrayList<>();
        private final int threshold;
        private long queued;

        StalledCall(CallOptions options) {
            Integer t = options.getOnReadyThreshold();
            this.threshold = t != null ? t : GRPC_DEFAULT_ON_READY_BYTES;
        }

        private volatile Listener<BulkAnswer> listener;

        @Override
        public void start(Listener<BulkAnswer> listener, Metadata headers) {
            this.listener = listener;
        }

        /** Ends the call with the server's status, on the calling thread, as the transport's thread would. */
        void end(io.grpc.Status status) {
            listener.onClose(status, new Metadata());
        }

        /** Delivers the server's answer to a batch, on the calling thread, as the transport's thread would. */
        void answer(long requestId) {
            listener.onMessage(new BulkAnswer(requestId, 1));
        }

        @Override
        public void request(int n) {
        }

        @Override
        public void cancel(String message, Throwable cause) {
        }

        @Override
        public void halfClose() {
        }

        @Override
        public synchronized void sendMessage(BulkMessage message) {
            queued += message.size();
            sent.add(message.size());
        }

        @Override
        public synchronized boolean isReady() {
            return queued < threshold;
        }
    }

    /** A codec whose batches are heap bytes of a fixed size, whatever rows were added. */
    static final class FixedSizeCodec implements TableCodec {
        private int rows;

        @Override
        public BulkMessage schemaMessage() {
            return BulkMessage.ofBytes(new byte[16]);
        }

        @Override
        public TableBufferRoot rows(int capacity, BatchGuard guard) {
            return (TableBufferRoot) Proxy.newProxyInstance(TableBufferRoot.class.getClassLoader(),
                    new Class<?>[] {TableBufferRoot.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "addRow" -> {
                                guard.enter();
                                guard.exit(++rows);
                                return proxy;
                            }
                            case "rowCount" -> {
                                return rows;
                            }
                            default -> throw new UnsupportedOperationException(method.getName());
                        }
                    });
        }

        @Override
        public long sizeBound() {
            return rows == 0 ? 0 : BATCH_BYTES;
        }

        @Override
        public BulkMessage unload(long requestId) {
            rows = 0;
            return BulkMessage.ofBytes(new byte[BATCH_BYTES]);
        }

        @Override
        public void reset() {
            rows = 0;
        }

        @Override
        public void closeRows() {
        }

        @Override
        public void close() {
        }

        @Override
        public long allocatedBytes() {
            return 0;
        }
    }

    /**
     * A bulk writer on a transport that writes nothing (each call a {@link StalledCall}, added to {@code calls}),
     * answers on the calling thread, five answer slots; on the timer's clock when the timer is a {@link ManualTime}.
     */
    static BulkEngineWriter stalledWriter(TableCodec codec, ScheduledExecutorService timer,
                                          List<StalledCall> calls) {
        return stalledWriter(codec, timer, calls, () -> {
        });
    }

    /**
     * As {@link #stalledWriter(TableCodec, ScheduledExecutorService, List)}, running {@code whenReached} each time
     * the engine tells the endpoint it answered (or ended a call itself).
     */
    static BulkEngineWriter stalledWriter(TableCodec codec, ScheduledExecutorService timer,
                                          List<StalledCall> calls, Runnable whenReached) {
        Channel channel = new Channel() {
            @Override
            public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
                StalledCall c = new StalledCall(options);
                calls.add(c);
                @SuppressWarnings("unchecked")
                ClientCall<Q, R> call = (ClientCall<Q, R>) c;
                return call;
            }

            @Override
            public String authority() {
                return "stalled:1";
            }
        };
        Route.Target target = new Route.Target() {
            @Override
            public String address() {
                return "stalled:1";
            }

            @Override
            public Channel channel() {
                return channel;
            }

            @Override
            public void reached() {
                whenReached.run();
            }

            @Override
            public void transportFailed(String cause, Supplier<String> next) {
            }
        };
        GreptimeOptions options = GreptimeOptions.newBuilder("stalled:1", "public").build();
        LongSupplier clock = timer instanceof LongSupplier onTimersClock ? onTimersClock : System::nanoTime;
        BulkClient client = new BulkClient(avoid -> target, Runnable::run, timer, clock,
                new InFlightLimiter(options), MetricsSink.NONE, () -> false);
        MethodDescriptor<BulkMessage, BulkAnswer> method = MethodDescriptor.<BulkMessage, BulkAnswer>newBuilder()
                .setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName("test/DoPut")
                .setRequestMarshaller(BulkMessage.MARSHALLER)
                .setResponseMarshaller(new MethodDescriptor.Marshaller<>() {
                    @Override
                    public InputStream stream(BulkAnswer value) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public BulkAnswer parse(InputStream stream) {
                        throw new UnsupportedOperationException();
                    }
                }).build();
        return new BulkEngineWriter(SCHEMA, BulkWrite.Config.newBuilder().maxInFlightRequests(5)
                .build(), Compression.None, RetryPolicy.newBuilder().build(), false, client, method,
                codec, TableCreation.none(), w -> {
                });
    }

    @Test
    void aBatchWrittenWithNoAnswerAwaitedReachesGrpcInsideItsWriteNextWhileTheTransportHasNotWrittenTheEarlierOnes() {
        List<StalledCall> calls = new CopyOnWriteArrayList<>();
        BulkEngineWriter writer = stalledWriter(new FixedSizeCodec(), timer, calls);
        try {
            TableBufferRoot rows = writer.tableBufferRoot(10);
            for (int b = 1; b <= 4; b++) {
                rows.addRow("h", (long) b);
                writer.writeNext();
                assertEquals(1, calls.size(), "one call");
                List<Integer> sent = calls.get(0).sent;
                assertEquals(b, sent.size() - 1, "batches handed to gRPC once batch " + b + "'s writeNext()"
                        + " returned (after the schema): " + sent);
                calls.get(0).answer(b); // answered, though the stalled transport still holds every byte
            }
        } finally {
            writer.close();
        }
    }

    @Test
    void batchesWrittenWhileAnswersAreAwaitedReachGrpcInsideTheirWriteNextInOrder() throws Exception {
        List<StalledCall> calls = new CopyOnWriteArrayList<>();
        // Time stands still: nothing the timer would do can send a batch; only writeNext() and answers run.
        BulkEngineWriter writer = stalledWriter(new FixedSizeCodec(), new ManualTime(), calls);
        try {
            TableBufferRoot rows = writer.tableBufferRoot(10);
            List<CompletableFuture<Integer>> futures = new ArrayList<>();
            for (int b = 1; b <= 5; b++) {
                rows.addRow("h", (long) b);
                futures.add(writer.writeNext());
                assertEquals(1, calls.size(), "one call");
                assertEquals(b, calls.get(0).sent.size() - 1, "batches handed to gRPC once batch " + b
                        + "'s writeNext() returned, none answered: " + calls.get(0).sent);
            }
            StalledCall call = calls.get(0);
            for (CompletableFuture<Integer> f : futures) {
                assertFalse(f.isDone(), "no batch is answered yet");
            }
            call.answer(1);
            assertEquals(1, futures.get(0).get(10, TimeUnit.SECONDS), "batch 1's future");
            assertEquals(5, call.sent.size() - 1, "an answer sends nothing more: every batch was out already: "
                    + call.sent);
            rows.addRow("h", 6L);
            writer.writeNext();
            assertEquals(6, call.sent.size() - 1, "batch 6 reaches gRPC inside its writeNext() with four answers"
                    + " awaited: " + call.sent);
        } finally {
            writer.close();
        }
    }
}
