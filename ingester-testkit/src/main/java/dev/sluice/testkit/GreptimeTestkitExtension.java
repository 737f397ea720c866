package dev.sluice.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension giving a test class one {@link GreptimeTestServer} on a free port, started before the
 * first test and stopped after the last. Use it declaratively, {@code @ExtendWith(GreptimeTestkitExtension.class)}
 * with a {@code GreptimeTestServer} test or lifecycle method parameter, or register an instance with
 * {@code @RegisterExtension} to configure it:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final GreptimeTestkitExtension testkit =
 *         new GreptimeTestkitExtension(GreptimeTestServer.builder().user("admin", "secret"));
 * ...
 * testkit.server().rows("metrics");
 * }</pre>
 */
public final class GreptimeTestkitExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
    private final GreptimeTestServer.Builder builder;
    private GreptimeTestServer server;

    /** Creates the extension with a default server. */
    public GreptimeTestkitExtension() {
        this(GreptimeTestServer.builder());
    }

    /**
     * Creates the extension with a configured server.
     *
     * @param builder the server settings
     */
    public GreptimeTestkitExtension(GreptimeTestServer.Builder builder) {
        this.builder = builder;
    }

    /**
     * Returns the running server.
     *
     * @return the server
     * @throws IllegalStateException before the class's tests start
     */
    public GreptimeTestServer server() {
        if (server == null) {
            throw new IllegalStateException("the testkit server starts before the first test of the class");
        }
        return server;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = builder.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
        return pc.getParameter().getType() == GreptimeTestServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) {
        return server();
    }
}
