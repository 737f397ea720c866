package dev.sluice.testkit.conformance;

import dev.sluice.testkit.GreptimeTestServer;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs {@link ConformanceCases} against the testkit reached only by host and ports, read back through its HTTP SQL
 * API: the same harness {@link GreptimeConformanceTest} points at a real GreptimeDB given by
 * {@code -Dgreptime.host}.
 */
class TestkitOverHttpConformanceTest {
    static GreptimeTestServer server;
    static ManagedChannel channel;

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.builder().user("conformance", "secret").httpPort(0).start();
        channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
    }

    @AfterAll
    static void stop() {
        channel.shutdownNow();
        server.close();
    }

    @TestFactory
    Stream<DynamicTest> everyCaseHoldsOnTheTestkitReachedByHostAndPorts() {
        String http = server.httpEndpoint();
        HttpSqlTarget target = new HttpSqlTarget("testkit", "127.0.0.1", server.port(),
                Integer.parseInt(http.substring(http.lastIndexOf(':') + 1)), "conformance", "secret");
        return ConformanceCases.run(target, channel, "h");
    }
}
