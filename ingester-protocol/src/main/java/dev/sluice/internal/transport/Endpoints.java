package dev.sluice.internal.transport;

import dev.sluice.GreptimeOptions;
import dev.sluice.internal.compression.ZstdGrpcCodec;
import dev.sluice.internal.bulk.spi.ReuseCache;
import dev.sluice.internal.send.Route;
import dev.sluice.internal.wire.HealthCheckGrpc;
import dev.sluice.internal.wire.HealthCheckRequest;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.ManagedChannel;

import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC channel per endpoint, shared by every write path, chosen round-robin among the healthy ones.
 *
 * <p>An endpoint is checked with {@code HealthCheck} at start and every {@code healthCheckInterval}. It is
 * ejected when a check fails, or after {@value #FAILURES_TO_EJECT} consecutive transport failures of real
 * calls, for a window that doubles with each ejection (1 s up to 60 s); a server error about the request (bad
 * data, overload) never ejects it. A passing check, or the window running out, brings it back. When every
 * endpoint is ejected, calls still go out round-robin over all of them rather than failing unsent.
 */
public final class Endpoints implements Route {
    static final int FAILURES_TO_EJECT = 3;
    private static final Logger LOG = LoggerFactory.getLogger(Endpoints.class);
    private static final long BASE_WINDOW = TimeUnit.SECONDS.toNanos(1);
    private static final long MAX_WINDOW = TimeUnit.SECONDS.toNanos(60);

    /** One server address and its state. */
    public final class Endpoint implements Route.Target {
        private final String address;
        private final ManagedChannel channel;
        private final Channel intercepted;
        private int consecutiveFailures;
        private long ejectedUntil;
        private long window = BASE_WINDOW;
        private boolean checkFailed;
        /** Transport failures of real calls since the endpoint last answered: a run, warned about once. */
        private long failuresInRun;

        Endpoint(String address, ManagedChannel channel, Channel intercepted) {
            this.address = address;
            this.channel = channel;
            this.intercepted = intercepted;
        }

        /** @return host:port */
        @Override
        public String address() {
            return address;
        }

        /** @return the channel, carrying the client's headers */
        @Override
        public Channel channel() {
            return intercepted;
        }

        @Override
        public void reached() {
            Endpoints.this.reached(this);
        }

        @Override
        public void transportFailed(String cause, java.util.function.Supplier<String> next) {
            Endpoints.this.transportFailed(this, cause, next);
        }

        synchronized boolean available(long now) {
            return !checkFailed && now >= ejectedUntil;
        }

        @Override
        public String toString() {
            return address;
        }
    }

    private final List<Endpoint> endpoints = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final WireCounter wire = new WireCounter();
    /** This client's channels' buffer allocator: keeps released large buffers for the next messages. */
    private final ReusingDirectAllocator allocator;
    private final Duration checkTimeout;
    private final EventLoops eventLoops;
    private ScheduledFuture<?> checks;
    /** Set when the client shuts down: checks cancelled by the shutdown say nothing about the endpoints. */
    private volatile boolean shutDown;

    /**
     * Opens (lazily connecting) a channel per endpoint and starts health checks.
     *
     * @param options client options
     * @param executor where gRPC runs call callbacks (never its I/O threads)
     * @param timer runs the health checks
     * @param channelSetup adds transport security to each channel builder
     * @param ioThreads makes the threads of the client's own event loops
     */
    public Endpoints(GreptimeOptions options, Executor executor, ScheduledExecutorService timer,
                     java.util.function.Consumer<NettyChannelBuilder> channelSetup,
                     java.util.concurrent.ThreadFactory ioThreads) {
        CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
        compressors.register(io.grpc.Codec.Identity.NONE);
        compressors.register(new io.grpc.Codec.Gzip());
        compressors.register(ZstdGrpcCodec.INSTANCE);
        DecompressorRegistry decompressors = DecompressorRegistry.getDefaultInstance().with(ZstdGrpcCodec.INSTANCE, true);
        HeaderInterceptor headers = new HeaderInterceptor(options.database(), options.authInfo());
        this.allocator = new ReusingDirectAllocator(PooledByteBufAllocator.DEFAULT, options.bufferCache().transportBytes(),
                options.bufferCache().idle().toNanos(), System::nanoTime, timer);
        // The client's own event loops, timer and offload executor instead of gRPC's process-wide shared ones,
        // whose threads outlive the channels by a second: its shutdown ends them all (a Flink job's class loader
        // is closed right after the job). Epoll where it loads, as gRPC's shared loops would have it.
        this.eventLoops = EventLoops.start(Math.min(options.endpoints().size(),
                2 * Runtime.getRuntime().availableProcessors()), ioThreads);
        for (String address : options.endpoints()) {
            NettyChannelBuilder b = NettyChannelBuilder.forTarget(address)
                    .eventLoopGroup(eventLoops.group())
                    .channelType(eventLoops.channelType())
                    .offloadExecutor(executor)
                    .executor(executor)
                    .compressorRegistry(compressors)
                    .decompressorRegistry(decompressors)
                    .maxInboundMessageSize(options.maxInboundMessageSize())
                    .keepAliveTime(30, TimeUnit.SECONDS)
                    .keepAliveWithoutCalls(false)
                    // Large message buffers are reused instead of faulting in fresh pages for every big request.
                    .withOption(ChannelOption.ALLOCATOR, allocator);
            channelSetup.accept(b);
            ManagedChannel ch = b.build();
            endpoints.add(new Endpoint(address, ch, ClientInterceptors.intercept(ch, headers, wire)));
        }
        this.checkTimeout = Duration.ofMillis(Math.min(options.requestTimeout().toMillis(), 3_000));
        long interval = options.healthCheckInterval().toNanos();
        if (interval > 0) {
            checks = timer.scheduleWithFixedDelay(this::checkAll, 0, interval, TimeUnit.NANOSECONDS);
        }
    }

    private void checkAll() {
        for (Endpoint e : endpoints) {
            var f = HealthCheckGrpc.newFutureStub(e.channel).withDeadlineAfter(checkTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .healthCheck(HealthCheckRequest.getDefaultInstance());
            f.addListener(() -> {
                boolean ok;
                try {
                    f.get();
                    ok = true;
                } catch (Exception ex) {
                    ok = false;
                }
                checked(e, ok);
            }, Runnable::run);
        }
    }

    private void checked(Endpoint e, boolean ok) {
        if (shutDown) {
            return; // a check ended by the client's own shutdown
        }
        boolean changed;
        synchronized (e) {
            changed = e.checkFailed == ok;
            e.checkFailed = !ok;
            if (ok) {
                e.consecutiveFailures = 0;
                e.failuresInRun = 0;
                e.ejectedUntil = 0;
                e.window = BASE_WINDOW;
            }
        }
        if (changed) {
            LOG.info("endpoint {} is {}", e.address, ok ? "healthy again" : "failing health checks; ejected");
        }
    }

    /**
     * Picks the next available endpoint round-robin.
     *
     * @param avoid an endpoint to skip when another is available (the one that just failed), or null
     * @return an endpoint
     */
    @Override
    public Endpoint next(Route.Target avoid) {
        long now = System.nanoTime();
        int n = endpoints.size();
        int start = Math.floorMod(next.getAndIncrement(), n);
        Endpoint fallback = null;
        for (int i = 0; i < n; i++) {
            Endpoint e = endpoints.get((start + i) % n);
            if (!e.available(now)) {
                continue;
            }
            if (e != avoid) {
                return e;
            }
            fallback = e;
        }
        if (fallback != null) {
            return fallback;
        }
        // Nothing looks healthy: try them anyway, in turn, rather than failing without sending.
        Endpoint e = endpoints.get(start);
        return e == avoid && n > 1 ? endpoints.get((start + 1) % n) : e;
    }

    /**
     * Records a call that reached the server (whatever the server answered).
     *
     * @param e the endpoint
     */
    public void reached(Endpoint e) {
        long run;
        synchronized (e) {
            e.consecutiveFailures = 0;
            run = e.failuresInRun;
            e.failuresInRun = 0;
        }
        if (run > 0) {
            LOG.info("endpoint {} answers again, after {} transport failures", e.address, run);
        }
    }

    /**
     * Records a transport failure; ejects the endpoint after consecutive failures. The first failure of a run
     * (since the endpoint last answered) is logged at WARN with its cause and what the client does next; the
     * rest of the run is not, until the endpoint answers again.
     *
     * @param e the endpoint
     * @param cause what failed, naming the endpoint and the root cause
     * @param next what the client does about it (retries until when, or gives up)
     */
    public void transportFailed(Endpoint e, String cause, java.util.function.Supplier<String> next) {
        long window = 0;
        boolean first;
        long run;
        synchronized (e) {
            first = e.failuresInRun++ == 0;
            run = e.failuresInRun;
            if (++e.consecutiveFailures >= FAILURES_TO_EJECT && System.nanoTime() >= e.ejectedUntil) {
                window = e.window;
                e.ejectedUntil = System.nanoTime() + window;
                e.window = Math.min(MAX_WINDOW, e.window * 2);
                e.consecutiveFailures = 0;
            }
        }
        if (first && !shutDown) {
            LOG.warn("endpoint {} failed: {}; {}. Further failures of this endpoint are not logged until it answers"
                    + " again", e.address, cause, next.get());
        }
        if (window > 0) {
            LOG.debug("endpoint {} ejected for {} ms after {} transport failures in a row ({} since it last answered)",
                    e.address, TimeUnit.NANOSECONDS.toMillis(window), FAILURES_TO_EJECT, run);
        }
    }

    /**
     * Lists the endpoints available now.
     *
     * @return addresses not ejected
     */
    public List<String> available() {
        long now = System.nanoTime();
        List<String> out = new ArrayList<>();
        for (Endpoint e : endpoints) {
            if (e.available(now)) {
                out.add(e.address);
            }
        }
        return out;
    }

    /**
     * Returns the wire byte counter shared by every channel.
     *
     * @return the counter
     */
    public WireCounter wire() {
        return wire;
    }

    /**
     * Starts an orderly shutdown: calls under way finish, new ones are refused. The transport buffer cache is
     * emptied, and buffers released from now on are freed at once.
     */
    public void shutdown() {
        shutDown = true;
        if (checks != null) {
            checks.cancel(false);
        }
        endpoints.forEach(e -> e.channel.shutdown());
        allocator.cache().trim();
    }

    /** Cancels every call under way, and empties the transport buffer cache. */
    public void shutdownNow() {
        shutDown = true;
        if (checks != null) {
            checks.cancel(false);
        }
        endpoints.forEach(e -> e.channel.shutdownNow());
        allocator.cache().trim();
    }

    /**
     * Waits for every channel to terminate.
     *
     * @param timeout the longest wait
     * @return true when all terminated in time
     * @throws InterruptedException when interrupted
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return awaitChannels(timeout);
    }

    /** @return the socket channel type the client's connections run on (epoll where it loads, else the JDK's) */
    Class<? extends io.grpc.netty.shaded.io.netty.channel.Channel> channelType() {
        return eventLoops.channelType();
    }

    /**
     * Ends the client's event loops once the channels have terminated, and waits for them.
     *
     * @param timeout the longest wait
     * @return true when they ended in time
     * @throws InterruptedException when interrupted
     */
    public boolean stopEventLoops(Duration timeout) throws InterruptedException {
        return eventLoops.group().shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
                .await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Ends the client's event loops without waiting (for a shutdown that runs on one of the client's threads). */
    public void stopEventLoopsLater() {
        eventLoops.group().shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
    }

    private boolean awaitChannels(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Endpoint e : endpoints) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !e.channel.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return true;
    }
}
