package dev.sluice.testkit.conformance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Runs {@link ConformanceCases} against a real GreptimeDB configured with one static user; reads go through its
 * HTTP SQL API. The server is, in this order:
 * <ul>
 *   <li>one already running, given by {@code -Dgreptime.host=H} with {@code -Dgreptime.grpcPort} (default 4001),
 *       {@code -Dgreptime.httpPort} (default 4000), {@code -Dgreptime.user} and {@code -Dgreptime.password}
 *       (default {@code conformance} / {@code secret}; start it with
 *       {@code --user-provider=static_user_provider:cmd:conformance=secret}); tables get a per-run suffix;</li>
 *   <li>else one started in Docker through Testcontainers ({@code -Dgreptime.image=greptime/greptimedb:<tag>});</li>
 *   <li>else every case is skipped, saying so.</li>
 * </ul>
 */
class GreptimeConformanceTest {
    static final String NO_SERVER = "No GreptimeDB to run the conformance cases against: give a running one with"
            + " -Dgreptime.host=H [-Dgreptime.grpcPort=4001 -Dgreptime.httpPort=4000 -Dgreptime.user=conformance"
            + " -Dgreptime.password=secret], or run where a Docker engine is reachable";

    static GenericContainer<?> greptime;
    static HttpSqlTarget target;
    static ManagedChannel channel;

    /** The server named by system properties, or null when {@code greptime.host} is not set. */
    static HttpSqlTarget givenServer() {
        String host = System.getProperty("greptime.host");
        if (host == null || host.isBlank()) {
            return null;
        }
        return new HttpSqlTarget("greptimedb", host, Integer.getInteger("greptime.grpcPort", 4001),
                Integer.getInteger("greptime.httpPort", 4000), System.getProperty("greptime.user", "conformance"),
                System.getProperty("greptime.password", "secret"));
    }

    static boolean dockerReachable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    @BeforeAll
    static void start() {
        target = givenServer();
        if (target == null) {
            assumeTrue(dockerReachable(), NO_SERVER);
            greptime = new GenericContainer<>(DockerImageName.parse(System.getProperty("greptime.image",
                    "greptime/greptimedb:latest")))
                    .withExposedPorts(4000, 4001)
                    .withCommand("standalone", "start", "--http-addr", "0.0.0.0:4000", "--rpc-bind-addr", "0.0.0.0:4001",
                            "--user-provider=static_user_provider:cmd:conformance=secret")
                    .waitingFor(Wait.forHttp("/health").forPort(4000).withStartupTimeout(Duration.ofMinutes(3)));
            greptime.start();
            target = new HttpSqlTarget("greptimedb", greptime.getHost(), greptime.getMappedPort(4001),
                    greptime.getMappedPort(4000), "conformance", "secret");
        }
        channel = NettyChannelBuilder.forAddress(target.host(), target.grpcPort()).usePlaintext().build();
    }

    @AfterAll
    static void stop() {
        if (channel != null) {
            channel.shutdownNow();
        }
        if (greptime != null) {
            greptime.stop();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCaseHoldsOnARealGreptimeDb() {
        return ConformanceCases.run(target, channel, "r" + Long.toString(System.nanoTime() % 1_000_000, 36));
    }
}
