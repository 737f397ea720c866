package dev.sluice.testkit.conformance;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

/**
 * Runs {@link ConformanceCases} against a real GreptimeDB in Docker, configured with one static user; reads go
 * through its HTTP SQL API. Skipped (reported as skipped) where no Docker engine is reachable. Choose the image
 * with {@code -Dgreptime.image=greptime/greptimedb:<tag>}.
 */
@Testcontainers(disabledWithoutDocker = true)
class GreptimeConformanceTest {
    static GenericContainer<?> greptime;
    static ManagedChannel channel;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();

    @BeforeAll
    static void start() {
        greptime = new GenericContainer<>(DockerImageName.parse(System.getProperty("greptime.image", "greptime/greptimedb:latest")))
                .withExposedPorts(4000, 4001)
                .withCommand("standalone", "start", "--http-addr", "0.0.0.0:4000", "--rpc-bind-addr", "0.0.0.0:4001",
                        "--user-provider=static_user_provider:cmd:conformance=secret")
                .waitingFor(Wait.forHttp("/health").forPort(4000).withStartupTimeout(Duration.ofMinutes(3)));
        greptime.start();
        channel = NettyChannelBuilder.forAddress(greptime.getHost(), greptime.getMappedPort(4001)).usePlaintext().build();
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

    /** A real GreptimeDB: reads through {@code POST /v1/sql}. */
    static final class RealTarget implements Target {
        @Override
        public String name() {
            return "greptimedb";
        }

        @Override
        public String host() {
            return greptime.getHost();
        }

        @Override
        public int grpcPort() {
            return greptime.getMappedPort(4001);
        }

        @Override
        public String user() {
            return "conformance";
        }

        @Override
        public String password() {
            return "secret";
        }

        JsonObject sql(String sql) throws Exception {
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + greptime.getHost() + ":"
                            + greptime.getMappedPort(4000) + "/v1/sql?db=public"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("conformance:secret"
                            .getBytes(StandardCharsets.UTF_8)))
                    .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)))
                    .timeout(Duration.ofSeconds(60)).build();
            HttpResponse<String> resp = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
            return JsonParser.parseString(resp.body()).getAsJsonObject();
        }

        static JsonArray rows(JsonObject answer) {
            if (!answer.has("output")) {
                throw new IllegalStateException("SQL failed: " + answer);
            }
            return answer.getAsJsonArray("output").get(0).getAsJsonObject().getAsJsonObject("records").getAsJsonArray("rows");
        }

        @Override
        public List<List<String>> select(String table, List<String> columns, String orderBy) throws Exception {
            List<List<String>> out = new ArrayList<>();
            for (JsonElement r : rows(sql("SELECT " + String.join(", ", columns) + " FROM " + table + " ORDER BY " + orderBy))) {
                List<String> line = new ArrayList<>();
                for (JsonElement v : r.getAsJsonArray()) {
                    line.add(v.isJsonNull() ? null : v.getAsString());
                }
                out.add(line);
            }
            return out;
        }

        @Override
        public String tableOption(String table, String key) throws Exception {
            String create = rows(sql("SHOW CREATE TABLE " + table)).get(0).getAsJsonArray().get(1).getAsString();
            Matcher m = Pattern.compile(Pattern.quote(key) + "\\s*=\\s*'([^']*)'").matcher(create);
            return m.find() ? m.group(1) : null;
        }

        @Override
        public boolean exists(String table) throws Exception {
            for (JsonElement r : rows(sql("SHOW TABLES"))) {
                if (r.getAsJsonArray().get(0).getAsString().equals(table)) {
                    return true;
                }
            }
            return false;
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCaseHoldsOnARealGreptimeDb() {
        Target target = new RealTarget();
        String suffix = "r" + Long.toString(System.nanoTime() % 1_000_000, 36);
        return ConformanceCases.all().stream().map(c -> DynamicTest.dynamicTest(c.name() + ": " + c.asserts(),
                () -> c.body().run(new ConformanceCases.Ctx(target, channel, suffix))));
    }
}
