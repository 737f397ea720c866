package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * --timeout and --retry-deadline of zero or less are usage errors like --batch 0: exit 2, the option named, no Java
 * stack trace, nothing created on the server.
 */
class NonPositiveTimeoutsAreUsageErrorsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"--timeout,0", "--timeout,-5", "--retry-deadline,-1"})
    void refused(String option, String value) throws Exception {
        Path f = dir.resolve("timeouts.csv");
        Files.writeString(f, "id,ts,v\n1,1700000000001,1\n");
        List<String> a = new ArrayList<>(List.of("--endpoint", testkit.server().endpoint(), "--http-endpoint",
                testkit.server().httpEndpoint(), "-q", "--tags", "id", option, value, f.toString()));
        Cli.Run r;
        try {
            r = Cli.run(a.toArray(new String[0]));
        } catch (RuntimeException e) {
            throw new AssertionError(option + " " + value + " escaped as an exception", e);
        }
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains(option), r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "a stack trace: " + r.err());
        assertFalse(testkit.server().tables().contains("timeouts"));
    }
}
