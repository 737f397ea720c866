package dev.sluice;

import dev.sluice.testkit.GreptimeTestServer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** A testkit server and a client pointed at it, for one test class; register with {@code @RegisterExtension}. */
final class TestkitClient implements BeforeAllCallback, AfterAllCallback {
    private final GreptimeTestServer.Builder serverSettings;
    private final UnaryOperator<GreptimeOptions.Builder> clientSettings;
    private GreptimeTestServer server;
    private GreptimeDB db;

    TestkitClient() {
        this(GreptimeTestServer.builder(), o -> o);
    }

    TestkitClient(GreptimeTestServer.Builder serverSettings, UnaryOperator<GreptimeOptions.Builder> clientSettings) {
        this.serverSettings = serverSettings;
        this.clientSettings = clientSettings;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = serverSettings.start();
        db = GreptimeDB.create(clientSettings.apply(
                GreptimeOptions.newBuilder(server.endpoint(), "public")).build());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        db.shutdownGracefully();
        server.close();
    }

    GreptimeTestServer server() {
        return server;
    }

    GreptimeDB db() {
        return db;
    }
}
