package dev.sluice.testkit.conformance;

import dev.sluice.testkit.GreptimeTestServer;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs {@link ConformanceCases} against the testkit, read back through its own API;
 * {@link TestkitOverHttpConformanceTest} reads back over HTTP SQL as {@link GreptimeConformanceTest} does from a real
 * GreptimeDB.
 */
class TestkitConformanceTest {
    static GreptimeTestServer server;
    static ManagedChannel channel;

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.builder().user("conformance", "secret").start();
        channel = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
    }

    @AfterAll
    static void stop() {
        channel.shutdownNow();
        server.close();
    }

    /** The testkit as a conformance target: reads go through its read-back API. */
    static final class TestkitTarget implements Target {
        @Override
        public String name() {
            return "testkit";
        }

        @Override
        public String host() {
            return "127.0.0.1";
        }

        @Override
        public int grpcPort() {
            return server.port();
        }

        @Override
        public String user() {
            return "conformance";
        }

        @Override
        public String password() {
            return "secret";
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public List<List<String>> select(String table, List<String> columns, String orderBy) {
            List<Map<String, Object>> rows = new ArrayList<>(server.rows(table));
            rows.sort(Comparator.comparing(r -> (Comparable) r.get(orderBy), Comparator.nullsFirst(Comparator.naturalOrder())));
            List<List<String>> out = new ArrayList<>();
            for (Map<String, Object> r : rows) {
                List<String> line = new ArrayList<>();
                for (String c : columns) {
                    Object v = r.get(c);
                    line.add(v == null ? null : v.toString());
                }
                out.add(line);
            }
            return out;
        }

        @Override
        public String tableOption(String table, String key) {
            return server.tableOptions("public", table).get(key);
        }

        @Override
        public boolean exists(String table) {
            return server.tables().contains(table);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCaseHoldsOnTheTestkit() {
        return ConformanceCases.run(new TestkitTarget(), channel, "tk");
    }
}
