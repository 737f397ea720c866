package dev.sluice.importer.rejects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.StatusCode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under --on-error skip, an answer GreptimeDB gives whatever the rows (1001 Unsupported: the server cannot do what is
 * asked) is not narrowed down to rows: no row is rejected for it, and the import fails with the server's message.
 */
class AnUnsupportedAnswerStopsTheImportUnderSkipTest {
    private static final String UNSUPPORTED = "Unsupported: this server does not take the request";

    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
    }

    @Test
    void noRowIsRejectedAndTheImportFailsWithTheServersMessage() throws Exception {
        Path csv = dir.resolve("hosts.csv");
        Files.writeString(csv, "host,ts,v\n"
                + "a,1700000000000,1\n"
                + "far,1700000000001,2\n");
        testkit.server().faults().refuseValue("host", "far", StatusCode.Unsupported, UNSUPPORTED);
        Path rejects = dir.resolve("rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "unsupported_rows", "--tags", "host", "--path",
                "regular", "--on-error", "skip", "--rejects", rejects.toString(), "--batch", "2", "--parallelism", "1",
                "--state", dir.resolve("state").toString(), csv.toString()));

        assertEquals(3, r.code(), r.toString());
        assertTrue(r.toString().contains(UNSUPPORTED), r.toString());
        assertTrue(!Files.exists(rejects) || Files.readAllLines(rejects).isEmpty(), r.toString());
        assertTrue(!testkit.server().tables().contains("unsupported_rows")
                || testkit.server().rows("unsupported_rows").isEmpty(), r.toString());
    }
}
