package dev.sluice.internal.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.internal.bulk.spi.DirectHandOff;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Drainable;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.buffer.AbstractByteBufAllocator;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Direct memory handed to gRPC's netty transport reaches the server byte for byte, is not copied into the
 * transport's buffers, and is given back exactly once: after it was written, or when its call is cancelled.
 * A real netty server and channel on loopback, with a raw method, so nothing of the bulk writer is involved.
 */
class NettyHandOffTest {
    static final int MIB = 1 << 20;
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new java.io.ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    };

    /** A message of prefix bytes, then direct memory, then suffix bytes, drained as gRPC's marshaller output. */
    record Message(byte[] prefix, ByteBuffer memory, byte[] suffix, Runnable released, AtomicReference<Boolean> taken) {
    }

    /** Neither KnownLength nor a ByteArrayInputStream: gRPC drains it into its buffer chain. */
    static final class MessageStream extends InputStream implements Drainable {
        final Message m;

        MessageStream(Message m) {
            this.m = m;
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            target.write(m.prefix());
            boolean taken = NettyHandOff.get().handOff(target, m.memory().duplicate(), m.released());
            m.taken().set(taken);
            if (!taken) {
                ByteBuffer copy = m.memory().duplicate();
                byte[] b = new byte[copy.remaining()];
                copy.get(b);
                target.write(b);
            }
            target.write(m.suffix());
            return m.prefix().length + m.memory().remaining() + m.suffix().length;
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException("drained, never read");
        }
    }

    static final MethodDescriptor<Message, byte[]> SEND = MethodDescriptor.<Message, byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.CLIENT_STREAMING)
            .setFullMethodName("test.HandOff/Send")
            .setRequestMarshaller(new MethodDescriptor.Marshaller<>() {
                @Override
                public InputStream stream(Message value) {
                    return new MessageStream(value);
                }

                @Override
                public Message parse(InputStream stream) {
                    throw new UnsupportedOperationException();
                }
            })
            .setResponseMarshaller(BYTES)
            .build();
    static final MethodDescriptor<byte[], byte[]> RECEIVE = SEND.toBuilder(BYTES, BYTES).build();

    /** Counts the direct bytes the client's transport allocates (its own copies of outgoing messages). */
    static final class CountingAllocator extends AbstractByteBufAllocator {
        final LongAdder direct = new LongAdder();

        CountingAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return PooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            direct.add(initialCapacity);
            return PooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return true;
        }
    }

    final CountingAllocator allocator = new CountingAllocator();
    final CompletableFuture<byte[]> received = new CompletableFuture<>();
    final CountDownLatch serverCallStarted = new CountDownLatch(1);
    /** When false the server never asks for the message, so the client's writes stall on HTTP/2 flow control. */
    volatile boolean serverReads = true;
    Server server;
    ManagedChannel channel;

    @BeforeEach
    void start() throws IOException {
        ServerCallHandler<byte[], byte[]> handler = new ServerCallHandler<>() {
            @Override
            public ServerCall.Listener<byte[]> startCall(ServerCall<byte[], byte[]> call, Metadata headers) {
                serverCallStarted.countDown();
                if (serverReads) {
                    call.request(1);
                }
                return new ServerCall.Listener<>() {
                    @Override
                    public void onMessage(byte[] message) {
                        received.complete(message);
                        call.sendHeaders(new Metadata());
                        call.sendMessage(new byte[] {1});
                        call.close(Status.OK, new Metadata());
                    }

                    @Override
                    public void onCancel() {
                        received.completeExceptionally(new IllegalStateException("cancelled"));
                    }
                };
            }
        };
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .maxInboundMessageSize(64 * MIB)
                .addService(ServerServiceDefinition.builder("test.HandOff").addMethod(RECEIVE, handler).build())
                .build().start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
                .withOption(ChannelOption.ALLOCATOR, allocator).build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static ByteBuffer direct(byte[] bytes) {
        ByteBuffer d = ByteBuffer.allocateDirect(bytes.length);
        d.put(bytes).flip();
        return d;
    }

    /** Starts the call, sends the message and half-closes; the answer is ignored. */
    ClientCall<Message, byte[]> send(Message m, CallOptions options) {
        ClientCall<Message, byte[]> call = channel.newCall(SEND, options);
        call.start(new ClientCall.Listener<>() { }, new Metadata());
        call.request(1);
        call.sendMessage(m);
        call.halfClose();
        return call;
    }

    @Test
    void handedOffMemoryReachesTheServerByteForByteWithoutACopyInTheTransportAndIsGivenBackOnceWritten()
            throws Exception {
        byte[] prefix = random(1000, 1);
        byte[] body = random(16 * MIB, 2);
        byte[] suffix = random(7, 3);
        AtomicInteger releases = new AtomicInteger();
        CountDownLatch released = new CountDownLatch(1);
        AtomicReference<Boolean> taken = new AtomicReference<>();
        send(new Message(prefix, direct(body), suffix, () -> {
            releases.incrementAndGet();
            released.countDown();
        }, taken), CallOptions.DEFAULT);

        byte[] got = received.get(30, TimeUnit.SECONDS);
        assertTrue(taken.get(), "the netty transport takes the memory");
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(prefix);
        expected.write(body);
        expected.write(suffix);
        assertArrayEquals(expected.toByteArray(), got);
        assertTrue(released.await(10, TimeUnit.SECONDS), "the memory is given back once written");
        Thread.sleep(100); // a window in which a second release does not come
        assertEquals(1, releases.get(), "given back exactly once");
        assertTrue(allocator.direct.sum() < MIB, "the transport allocated " + allocator.direct.sum()
                + " direct bytes for a 16 MiB message: it copied the handed-off memory");
    }

    @Test
    void withGrpcCompressionTheMemoryIsNotTakenAndTheCallerCopiesIt() throws Exception {
        byte[] body = random(2 * MIB, 4);
        AtomicInteger releases = new AtomicInteger();
        AtomicReference<Boolean> taken = new AtomicReference<>();
        send(new Message(new byte[] {9}, direct(body), new byte[0], releases::incrementAndGet, taken),
                CallOptions.DEFAULT.withCompression("gzip"));

        byte[] got = received.get(30, TimeUnit.SECONDS);
        assertFalse(taken.get(), "gRPC compression drains into a compressing stream, which cannot take memory");
        assertEquals(2 * MIB + 1, got.length);
        assertEquals(9, got[0]);
        assertArrayEquals(body, java.util.Arrays.copyOfRange(got, 1, got.length));
        assertEquals(0, releases.get(), "memory never taken is never given back");
    }

    @Test
    void anotherOutputStreamIsRefusedAndNothingIsGivenBack() {
        AtomicInteger releases = new AtomicInteger();
        DirectHandOff handOff = NettyHandOff.get();
        assertNotSame(DirectHandOff.NONE, handOff, "this gRPC's framer is the one the hand-off knows");
        assertFalse(handOff.handOff(new ByteArrayOutputStream(), ByteBuffer.allocateDirect(10),
                releases::incrementAndGet));
        assertEquals(0, releases.get());
    }

    @Test
    void memoryStuckBehindFlowControlIsGivenBackWhenTheCallIsCancelled() throws Exception {
        serverReads = false;
        CountDownLatch released = new CountDownLatch(1);
        AtomicInteger releases = new AtomicInteger();
        AtomicReference<Boolean> taken = new AtomicReference<>();
        ClientCall<Message, byte[]> call = send(new Message(new byte[] {1}, direct(random(32 * MIB, 5)), new byte[0],
                () -> {
                    releases.incrementAndGet();
                    released.countDown();
                }, taken), CallOptions.DEFAULT);
        assertTrue(serverCallStarted.await(10, TimeUnit.SECONDS));
        // A new channel's first message waits for the connection, so it may be drained after the call started.
        dev.sluice.Await.until("the first message drained", java.time.Duration.ofSeconds(10), () -> taken.get() != null);
        assertEquals(Boolean.TRUE, taken.get());
        // The server never reads, so at most its flow-control window of the 32 MiB has been written.
        assertFalse(released.await(500, TimeUnit.MILLISECONDS), "the transport still holds the unwritten memory");
        call.cancel("test cancels", null);
        assertTrue(released.await(10, TimeUnit.SECONDS), "a cancelled call gives the memory back");
        Thread.sleep(100); // a window in which a second release does not come
        assertEquals(1, releases.get());
    }
}
