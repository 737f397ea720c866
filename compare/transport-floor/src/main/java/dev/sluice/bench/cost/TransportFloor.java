package dev.sluice.bench.cost;

import dev.sluice.bench.workload.Workload;
import dev.sluice.data.Table;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.write.RequestEncoder;
import dev.sluice.write.WriteOp;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import dev.sluice.internal.transport.ReusingDirectAllocator;
import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.WriteBufferWaterMark;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What gRPC-Java over Netty costs to carry the regular path's requests, with nothing else: the requests of the
 * workload's first batches (32, or as many as fit in 256 MiB, at least one) are encoded once by Sluice's own encoder
 * before the measured part (so these are the very bytes Sluice sends), then {@code parallelism} threads each keep one unary {@code Handle} call in flight on
 * one plain channel, cycling through them, until {@code rows} rows were sent. Measured from the channel's creation
 * to its termination with the cost benchmark's probes ({@link Jvm}); prints the cost client's result line.
 *
 * <p>Arguments: {@code workload rows batch parallelism host:port [variant,...]}; variants try channel settings:
 * {@code disableRetry}, {@code directExecutor}, {@code waterMark} (write-buffer marks 1/4 MiB), and
 * {@code eventLoop}: the channel on an event loop of its own, with no retry layer and no executor hop, each writer
 * handing its call's start to that event loop and waiting for the call's close; {@code chain}: the same channel,
 * but no writer threads: {@code parallelism} chains of calls run on the event loop, each call started by the close of
 * the one before it (the leanest use of gRPC-Java found); {@code reusingAllocator}: Sluice's channel allocator, which
 * keeps large direct buffers for the next message (netty's own pool maps fresh pages for every 140 MB logs request).
 * Run by {@code compare/run.sh}.
 */
public final class TransportFloor {
    private static final int MAX_DISTINCT_REQUESTS = 32;
    private static final long MAX_ENCODED_BYTES = 256L << 20;

    private TransportFloor() {
    }

    /** A request's bytes as gRPC likes them: length known up front, drained in one write. */
    private static final class RequestBytes extends InputStream implements KnownLength, Drainable {
        private final byte[] bytes;
        private int pos;

        RequestBytes(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public int read() {
            return pos < bytes.length ? bytes[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] dst, int off, int len) {
            if (pos >= bytes.length) {
                return -1;
            }
            int n = Math.min(len, bytes.length - pos);
            System.arraycopy(bytes, pos, dst, off, n);
            pos += n;
            return n;
        }

        @Override
        public int available() {
            return bytes.length - pos;
        }

        @Override
        public int drainTo(OutputStream out) throws IOException {
            int n = bytes.length - pos;
            out.write(bytes, pos, n);
            pos = bytes.length;
            return n;
        }
    }

    /** Hands gRPC a prepared message without a copy of its own; parses answers as their bytes. */
    static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new RequestBytes(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    /** Starts one unary call from the event loop itself; the future completes with the call's status. */
    private static CompletableFuture<Status> startOnEventLoop(EventLoopGroup loop, ManagedChannel channel,
                                                             MethodDescriptor<byte[], byte[]> method, CallOptions options,
                                                             byte[] request) {
        CompletableFuture<Status> closed = new CompletableFuture<>();
        loop.execute(() -> {
            ClientCall<byte[], byte[]> call = channel.newCall(method, options);
            call.start(new ClientCall.Listener<>() {
                @Override
                public void onClose(Status status, Metadata trailers) {
                    closed.complete(status);
                }
            }, new Metadata());
            call.sendMessage(request);
            call.halfClose();
            call.request(1);
        });
        return closed;
    }

    /** The request Sluice's regular path sends for one table, made by its own encoder. */
    private static byte[] encode(byte[] header, Table table) throws IOException {
        RequestEncoder e = new RequestEncoder(header, WriteOp.Insert, List.of(table));
        byte[] bytes = new byte[e.size()];
        e.encode(bytes);
        return bytes;
    }

    /**
     * Runs one measured transport-only client.
     *
     * @param args workload, rows, batch, parallelism, endpoint, optional comma-separated variants
     * @throws Exception when the run fails
     */
    public static void main(String[] args) throws Exception {
        Workload wl = Workload.named(args[0], 42);
        long rows = Long.parseLong(args[1]);
        int batch = Integer.parseInt(args[2]);
        int parallelism = Integer.parseInt(args[3]);
        String endpoint = args[4];
        Set<String> variants = args.length > 5 ? Set.of(args[5].split(",")) : Set.of();

        byte[] header = RequestHeader.newBuilder().setDbname("public").build().toByteArray();
        List<byte[]> requests = new java.util.ArrayList<>();
        long encoded = 0;
        for (int k = 0; k < MAX_DISTINCT_REQUESTS && (k == 0 || encoded < MAX_ENCODED_BYTES); k++) {
            byte[] bytes = encode(header, wl.batch((long) k * batch, batch));
            requests.add(bytes);
            encoded += bytes.length;
        }
        long batches = (rows + batch - 1) / batch;
        int lastRows = (int) (rows - (batches - 1) * batch);
        byte[] last = lastRows == batch ? null : encode(header, wl.batch((batches - 1) * batch, lastRows));
        MethodDescriptor<byte[], byte[]> handle = MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("greptime.v1.GreptimeDatabase/Handle")
                .setRequestMarshaller(RAW).setResponseMarshaller(RAW).build();

        Map<Long, Long> alloc0 = Jvm.allocatedByThread();
        long cpu0 = Jvm.processCpuNanos();
        long jitCpu0 = Jvm.compilerCpuNanos();
        long start = System.nanoTime();
        ExecutorService executor = Executors.newCachedThreadPool();
        NettyChannelBuilder b = NettyChannelBuilder.forTarget(endpoint).usePlaintext().maxInboundMessageSize(64 << 20);
        boolean chain = variants.contains("chain");
        EventLoopGroup eventLoop = variants.contains("eventLoop") || chain ? new EpollEventLoopGroup(1) : null;
        if (eventLoop != null) {
            b.eventLoopGroup(eventLoop).channelType(EpollSocketChannel.class);
        }
        if (variants.contains("directExecutor") || eventLoop != null) {
            b.directExecutor();
        } else {
            b.executor(executor);
        }
        if (variants.contains("disableRetry") || eventLoop != null) {
            b.disableRetry();
        }
        if (variants.contains("reusingAllocator")) {
            b.withOption(ChannelOption.ALLOCATOR, new ReusingDirectAllocator(PooledByteBufAllocator.DEFAULT,
                    ReusingDirectAllocator.defaultBudget(), TimeUnit.SECONDS.toNanos(30), System::nanoTime, null));
        }
        if (variants.contains("waterMark")) {
            b.withOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 4 << 20));
        }
        ManagedChannel channel = b.build();
        AtomicLong next = new AtomicLong();
        AtomicLong sent = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong endedAlloc = new AtomicLong();
        if (chain) {
            // No writer threads: parallelism chains of calls on the event loop, each call started by the close of
            // the one before it in its chain.
            CountDownLatch chainsDone = new CountDownLatch(parallelism);
            Runnable[] startNext = new Runnable[1];
            startNext[0] = () -> {
                long k = next.getAndIncrement();
                if (k >= batches) {
                    chainsDone.countDown();
                    return;
                }
                int n = (int) Math.min(batch, rows - k * batch);
                byte[] request = k == batches - 1 && last != null ? last : requests.get((int) (k % requests.size()));
                ClientCall<byte[], byte[]> call = channel.newCall(handle,
                        CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.MINUTES));
                call.start(new ClientCall.Listener<>() {
                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        if (status.isOk()) {
                            sent.addAndGet(n);
                        } else {
                            failed.incrementAndGet();
                            System.err.println("transport floor: " + status);
                        }
                        startNext[0].run();
                    }
                }, new Metadata());
                call.sendMessage(request);
                call.halfClose();
                call.request(1);
            };
            for (int w = 0; w < parallelism; w++) {
                eventLoop.execute(startNext[0]);
            }
            chainsDone.await();
            endedAlloc.addAndGet(eventLoop.submit(dev.sluice.bench.run.ModeRunner::currentThreadAllocatedBytes).get());
        }
        Thread[] workers = new Thread[chain ? 0 : parallelism];
        for (int w = 0; w < workers.length; w++) {
            workers[w] = new Thread(() -> {
                long k;
                while ((k = next.getAndIncrement()) < batches) {
                    int n = (int) Math.min(batch, rows - k * batch);
                    byte[] request = k == batches - 1 && last != null ? last : requests.get((int) (k % requests.size()));
                    CallOptions call = CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.MINUTES);
                    try {
                        if (eventLoop != null) {
                            Status status = startOnEventLoop(eventLoop, channel, handle, call, request).get();
                            if (!status.isOk()) {
                                throw new ExecutionException(status.asException());
                            }
                        } else {
                            ClientCalls.futureUnaryCall(channel.newCall(handle, call), request).get();
                        }
                        sent.addAndGet(n);
                    } catch (ExecutionException e) {
                        failed.incrementAndGet();
                        System.err.println("transport floor: " + e.getCause());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                // Counted here: the writers have ended by the time the totals are read.
                endedAlloc.addAndGet(dev.sluice.bench.run.ModeRunner.currentThreadAllocatedBytes());
            }, "floor-writer-" + w);
            workers[w].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        channel.shutdown().awaitTermination(1, TimeUnit.MINUTES);
        executor.shutdown();
        if (eventLoop != null) {
            eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        long cpu = Jvm.processCpuNanos() - cpu0;
        long jitCpu = jitCpu0 < 0 ? -1 : Jvm.compilerCpuNanos() - jitCpu0;
        System.out.printf(Locale.ROOT, "sluice-cost-result rows=%d acked=%d failed=%d cpu_ns=%d seconds=%.6f"
                        + " alloc_bytes=%d rss_kib=%d jit_ms=-1 jit_cpu_ns=%d%n", rows, sent.get(), failed.get(), cpu,
                seconds, Jvm.allocatedSince(alloc0) + endedAlloc.get(), Jvm.peakRssKiB(), jitCpu);
        System.out.flush();
        System.exit(failed.get() == 0 && sent.get() == rows ? 0 : 1);
    }
}
