package dev.sluice;

import dev.sluice.testkit.GreptimeTestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Base of test classes that share one default testkit server and one default client per class. */
abstract class DefaultTestkitTest {
    @RegisterExtension
    static final TestkitClient KIT = new TestkitClient();
    static GreptimeTestServer server;
    static GreptimeDB db;

    @BeforeAll
    static void bind() {
        server = KIT.server();
        db = KIT.db();
    }
}
