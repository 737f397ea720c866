package dev.sluice.importer.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --summary-json} holds {@code error} and {@code exitCode}: a script that reads it to learn how the import
 * ended finds it however the import ended, also when it failed before reading its first row.
 */
class TheSummaryJsonIsWrittenWhenAnImportFailsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void anInputThatCannotBeReadLeavesASummaryWithItsErrorAndExitCode() throws Exception {
        Path empty = dir.resolve("empty.csv");
        Files.write(empty, new byte[0]);
        Path json = dir.resolve("summary.json");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "never_created", "--state",
                dir.resolve("s.state").toString(), "--summary-json", json.toString(), empty.toString()));

        assertTrue(Files.exists(json), "the import ended (exit " + r.code() + ") and left no --summary-json file: "
                + r);
        String summary = Files.readString(json);
        assertTrue(summary.contains("\"exitCode\":" + r.code()), "the summary gives the exit code: " + summary);
        if (r.code() != 0) {
            assertTrue(summary.contains("empty.csv"), "the summary's error names the input: " + summary);
        }
    }

    @Test
    void anUnreachableHttpApiLeavesASummaryWithItsErrorAndExitCode() throws Exception {
        Path csv = dir.resolve("ok.csv");
        Files.writeString(csv, "id,ts,v\na,1700000000000,1\n");
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Path json = dir.resolve("unreachable.json");
        Cli.Run r = Cli.run("--endpoint", testkit.server().endpoint(), "--http-endpoint", "127.0.0.1:" + closed,
                "--retry-deadline", "600", "--timeout", "300", "--table", "not_reached", "--state",
                dir.resolve("u.state").toString(), "--summary-json", json.toString(), csv.toString());

        assertEquals(3, r.code(), r.toString());
        assertTrue(!testkit.server().tables().contains("not_reached"), "nothing was written");
        assertTrue(Files.exists(json), "the import failed (exit 3) and left no --summary-json file: " + r);
        assertTrue(Files.readString(json).contains("\"exitCode\":3"), Files.readString(json));
    }
}
