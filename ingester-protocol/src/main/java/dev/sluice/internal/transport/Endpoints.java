package dev.sluice.internal.transport;

import dev.sluice.GreptimeOptions;
import dev.sluice.internal.compression.ZstdGrpcCodec;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** One gRPC channel per endpoint, shared by every write path, chosen round-robin. */
public final class Endpoints {
    private final List<String> addresses;
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final List<Channel> intercepted = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final WireCounter wire = new WireCounter();

    /**
     * Opens (lazily connecting) a channel per endpoint.
     *
     * @param options client options
     * @param executor where gRPC runs call callbacks (never its I/O threads)
     */
    public Endpoints(GreptimeOptions options, Executor executor) {
        this.addresses = options.endpoints();
        CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
        compressors.register(io.grpc.Codec.Identity.NONE);
        compressors.register(new io.grpc.Codec.Gzip());
        compressors.register(ZstdGrpcCodec.INSTANCE);
        DecompressorRegistry decompressors = DecompressorRegistry.getDefaultInstance().with(ZstdGrpcCodec.INSTANCE, true);
        HeaderInterceptor headers = new HeaderInterceptor(options.database(), options.authInfo());
        for (String address : addresses) {
            ManagedChannel ch = NettyChannelBuilder.forTarget(address)
                    .usePlaintext()
                    .executor(executor)
                    .compressorRegistry(compressors)
                    .decompressorRegistry(decompressors)
                    .maxInboundMessageSize(options.maxInboundMessageSize())
                    .keepAliveTime(30, TimeUnit.SECONDS)
                    .keepAliveWithoutCalls(false)
                    .build();
            channels.add(ch);
            intercepted.add(ClientInterceptors.intercept(ch, headers, wire));
        }
    }

    /**
     * Picks the next channel round-robin.
     *
     * @return a channel carrying the client's headers
     */
    public Channel pick() {
        int i = Math.floorMod(next.getAndIncrement(), intercepted.size());
        return intercepted.get(i);
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
     * Returns the endpoint addresses.
     *
     * @return {@code host:port} entries
     */
    public List<String> addresses() {
        return addresses;
    }

    /** Starts an orderly shutdown: calls under way finish, new ones are refused. */
    public void shutdown() {
        channels.forEach(ManagedChannel::shutdown);
    }

    /** Cancels every call under way. */
    public void shutdownNow() {
        channels.forEach(ManagedChannel::shutdownNow);
    }

    /**
     * Waits for every channel to terminate.
     *
     * @param timeout the longest wait
     * @return true when all terminated in time
     * @throws InterruptedException when interrupted
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ManagedChannel ch : channels) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !ch.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return true;
    }
}
