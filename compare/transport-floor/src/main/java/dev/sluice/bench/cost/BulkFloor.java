package dev.sluice.bench.cost;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bench.workload.Workload;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.internal.ArrowColumnSink;
import dev.sluice.bulk.internal.ArrowTypes;
import dev.sluice.bulk.internal.FlightMessages;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.model.RowWriter;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.internal.transport.ReusingDirectAllocator;
import dev.sluice.write.Context;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What gRPC-Java over Netty costs to carry the bulk path's {@code DoPut} messages, with nothing else: the
 * {@code FlightData} of the workload's first batches (32, or as many as fit in 256 MiB, at least one) is made once,
 * before the measured part, by Sluice's own Arrow column sinks and message writer (so these are the bytes Sluice
 * sends, request ids aside), then one {@code DoPut} stream sends them, cycling through them, with at most
 * {@code inFlight} batches unanswered, until {@code rows} rows were sent; the stream is then half-closed and every
 * answer awaited. Everything from the call's start on runs on the channel's own event loop (see {@code main}). No
 * rows are made or checked, nothing is copied into Arrow memory, nothing is kept for a resend.
 * Measured from the channel's creation to its termination with the cost benchmark's probes ({@link Jvm}); prints
 * the cost client's result line.
 *
 * <p>Arguments: {@code workload rows batch inFlight host:port}. The table is created through Sluice's client before
 * the measured part (the testkit, like GreptimeDB, takes {@code DoPut} only into an existing table). Run by
 * {@code compare/run.sh} as the client {@code bulkfloor}.
 */
public final class BulkFloor {
    private static final int MAX_DISTINCT_BATCHES = 32;
    private static final long MAX_ENCODED_BYTES = 256L << 20;
    private static final Metadata.Key<String> DB_NAME =
            Metadata.Key.of("x-greptime-db-name", Metadata.ASCII_STRING_MARSHALLER);

    private BulkFloor() {
    }

    /** One batch's FlightData, made by Sluice's sinks and message writer from the workload's rows. */
    private static byte[] batch(Workload wl, Schema arrow, BufferAllocator allocator, long first, int count, long id) {
        TableSchema schema = wl.schema();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
            ArrowColumnSink[] sinks = new ArrowColumnSink[schema.columnCount()];
            for (int i = 0; i < sinks.length; i++) {
                FieldVector v = root.getVector(i);
                v.setInitialCapacity(count);
                v.allocateNew();
                sinks[i] = new ArrowColumnSink(v);
            }
            int[] row = {0};
            wl.fill(values -> RowWriter.write(schema, sinks, row[0]++, values), first, count);
            for (ArrowColumnSink s : sinks) {
                s.finish(count);
            }
            for (FieldVector v : root.getFieldVectors()) {
                v.setValueCount(count);
            }
            root.setRowCount(count);
            ArrowRecordBatch rb = new VectorUnloader(root).getRecordBatch();
            BulkMessage m = FlightMessages.batchMessage(rb, id, DirectHandOff.NONE);
            byte[] bytes = FlightMessages.toBytes(m);
            m.release();
            return bytes;
        }
    }

    /**
     * Runs one measured transport-only bulk client.
     *
     * @param args workload, rows, batch, in-flight limit, endpoint
     * @throws Exception when the run fails
     */
    public static void main(String[] args) throws Exception {
        Workload wl = Workload.named(args[0], 42);
        long rows = Long.parseLong(args[1]);
        int batch = Integer.parseInt(args[2]);
        int inFlight = Integer.parseInt(args[3]);
        String endpoint = args[4];
        TableSchema schema = wl.schema();

        // The table, through Sluice's own bulk writer (it creates a missing table), before anything is measured.
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(endpoint, "public").build());
        try (BulkStreamWriter w = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(), Context.newBuilder().build())) {
            w.completed();
        }
        db.shutdownGracefully();

        Schema arrow = ArrowTypes.schema(schema);
        byte[] head = FlightMessages.schemaMessage(schema.tableName(), arrow.getFields());
        List<byte[]> batches = new ArrayList<>();
        long batchCount = (rows + batch - 1) / batch;
        int lastRows = (int) (rows - (batchCount - 1) * batch);
        byte[] last;
        try (BufferAllocator allocator = new RootAllocator()) {
            long encoded = 0;
            for (int k = 0; k < MAX_DISTINCT_BATCHES && (k == 0 || encoded < MAX_ENCODED_BYTES); k++) {
                byte[] bytes = batch(wl, arrow, allocator, (long) k * batch, batch, k + 1);
                batches.add(bytes);
                encoded += bytes.length;
            }
            last = lastRows == batch ? null
                    : batch(wl, arrow, allocator, (batchCount - 1) * batch, lastRows, batchCount);
        }
        MethodDescriptor<byte[], byte[]> doPut = MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
                .setFullMethodName("arrow.flight.protocol.FlightService/DoPut")
                .setRequestMarshaller(TransportFloor.RAW).setResponseMarshaller(TransportFloor.RAW).build();

        Map<Long, Long> alloc0 = Jvm.allocatedByThread();
        long cpu0 = Jvm.processCpuNanos();
        long jitCpu0 = Jvm.compilerCpuNanos();
        long start = System.nanoTime();
        // gRPC driven the leanest way found: the channel on an event loop of its
        // own with no executor hop and no retry layer, every answer requested up front, a 1 MiB flow-control window,
        // and each next batch sent from the answer that frees its slot, on that event loop: no application thread
        // takes part per batch. Sluice's channel allocator, so that large messages reuse their direct buffers as
        // Sluice's do (netty's own pool maps fresh pages for every 150 MB logs batch, a cost that is no floor's).
        EventLoopGroup loop = new EpollEventLoopGroup(1);
        ManagedChannel channel = NettyChannelBuilder.forTarget(endpoint).usePlaintext()
                .eventLoopGroup(loop).channelType(EpollSocketChannel.class).directExecutor().disableRetry()
                .flowControlWindow(1 << 20).maxInboundMessageSize(64 << 20)
                .withOption(ChannelOption.ALLOCATOR, new ReusingDirectAllocator(PooledByteBufAllocator.DEFAULT,
                        ReusingDirectAllocator.defaultBudget(), TimeUnit.SECONDS.toNanos(30), System::nanoTime, null))
                .build();
        long[] sent = {0};
        AtomicLong answers = new AtomicLong();
        AtomicReference<Status> closedWith = new AtomicReference<>();
        CountDownLatch closed = new CountDownLatch(1);
        ClientCall<byte[], byte[]> call = channel.newCall(doPut, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.MINUTES));
        Runnable sendNext = () -> {
            long k = sent[0]++;
            call.sendMessage(k == batchCount - 1 && last != null ? last : batches.get((int) (k % batches.size())));
            if (sent[0] == batchCount) {
                call.halfClose();
            }
        };
        loop.execute(() -> {
            Metadata headers = new Metadata();
            headers.put(DB_NAME, "public");
            call.start(new ClientCall.Listener<>() {
                @Override
                public void onMessage(byte[] message) {
                    // GreptimeDB (and the testkit) answer once with request id 0 before reading anything: that
                    // answer frees no slot. Every later one answers a batch and frees its slot.
                    if (answers.getAndIncrement() > 0 && sent[0] < batchCount) {
                        sendNext.run();
                    }
                }

                @Override
                public void onClose(Status status, Metadata trailers) {
                    closedWith.set(status);
                    closed.countDown();
                }
            }, headers);
            call.request(Integer.MAX_VALUE);
            call.sendMessage(head);
            for (int i = 0; i < inFlight && sent[0] < batchCount; i++) {
                sendNext.run();
            }
        });
        closed.await(5, TimeUnit.MINUTES);
        double seconds = (System.nanoTime() - start) / 1e9;
        // The event loop did all the sending: its allocation, read before it ends (an ended thread is not counted).
        long loopAlloc = loop.submit(dev.sluice.bench.run.ModeRunner::currentThreadAllocatedBytes).get();
        channel.shutdown().awaitTermination(1, TimeUnit.MINUTES);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        long cpu = Jvm.processCpuNanos() - cpu0;
        long jitCpu = jitCpu0 < 0 ? -1 : Jvm.compilerCpuNanos() - jitCpu0;
        Status status = closedWith.get();
        boolean ok = status != null && status.isOk() && answers.get() == batchCount + 1;
        if (!ok) {
            System.err.println("bulk floor: " + status + ", " + (answers.get() - 1) + " answers for " + batchCount + " batches");
        }
        System.out.printf(Locale.ROOT, "sluice-cost-result rows=%d acked=%d failed=%d cpu_ns=%d seconds=%.6f"
                        + " alloc_bytes=%d rss_kib=%d jit_ms=-1 jit_cpu_ns=%d%n", rows, ok ? rows : 0, ok ? 0 : 1, cpu,
                seconds, Jvm.allocatedSince(alloc0) + loopAlloc, Jvm.peakRssKiB(), jitCpu);
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }
}
