package dev.sluice.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.wire.HealthCheckGrpc;
import dev.sluice.internal.wire.HealthCheckRequest;
import dev.sluice.testkit.GreptimeTestServer;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.FastThreadLocalThread;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client's connections run on Linux's epoll where Netty's native transport loads (less CPU per request on the
 * event loop than the JDK's selector), and on the JDK's selector where it does not; either carries calls. The event
 * loops run on Netty's own kind of thread, the only kind on which Netty pools its per-write objects and keeps a
 * buffer cache: on a plain thread every write allocates them anew.
 */
class EventLoopsRunEpollOnNettysOwnThreadsTest {
    private static GreptimeTestServer server;
    private static ExecutorService executor;
    private static ScheduledExecutorService timer;

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.start();
        executor = Executors.newCachedThreadPool();
        timer = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterAll
    static void stop() {
        timer.shutdownNow();
        executor.shutdownNow();
        server.close();
    }

    @Test
    void theClientsConnectionsRunOnEpollWhereNettysNativeTransportLoads() throws Exception {
        assumeTrue(Epoll.isAvailable(), () -> "Netty's native epoll transport does not load here: "
                + Epoll.unavailabilityCause());
        Endpoints endpoints = new Endpoints(GreptimeOptions.newBuilder(server.endpoint(), "public").build(), executor,
                timer, TransportSecurity.setup(null), Executors.defaultThreadFactory());
        try {
            assertEquals(EpollSocketChannel.class, endpoints.channelType());
            // The call is answered over that transport.
            HealthCheckGrpc.newBlockingStub(endpoints.next(null).channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .healthCheck(HealthCheckRequest.getDefaultInstance());
        } finally {
            endpoints.shutdownNow();
            endpoints.awaitTermination(Duration.ofSeconds(30));
            endpoints.stopEventLoops(Duration.ofSeconds(30));
        }
    }

    @Test
    void withoutTheNativeTransportTheJdksSelectorCarriesTheCalls() throws Exception {
        EventLoops loops = EventLoops.start(1, Executors.defaultThreadFactory(), false);
        assertEquals(NioSocketChannel.class, loops.channelType());
        ManagedChannel channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext()
                .eventLoopGroup(loops.group()).channelType(loops.channelType()).build();
        try {
            HealthCheckGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .healthCheck(HealthCheckRequest.getDefaultInstance());
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(30, TimeUnit.SECONDS);
            loops.group().shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).await(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void theClientsEventLoopsRunOnNettysFastThreadLocalThreads() {
        TableSchema schema = TableSchema.newBuilder("event_loop_threads").addTag("host", DataType.String)
                .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(schema, 2);
        t.addRow("a", 1.0, 1L);
        t.addRow("b", 2.0, 2L);
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
            assertTrue(db.write(t).join().isOk());
            assertEquals(2, server.rowCount("event_loop_threads"));
            // The client's threads are alive until its shutdown: its event loop carried the write above.
            List<Thread> loops = Thread.getAllStackTraces().keySet().stream()
                    .filter(x -> x.getName().startsWith("sluice-grpc-io-")).toList();
            assertFalse(loops.isEmpty(), "the client's event loop threads are named sluice-grpc-io-N");
            for (Thread loop : loops) {
                assertTrue(loop instanceof FastThreadLocalThread, loop.getName() + " is a " + loop.getClass().getName()
                        + ", on which Netty pools no per-write objects");
            }
        }
    }
}
