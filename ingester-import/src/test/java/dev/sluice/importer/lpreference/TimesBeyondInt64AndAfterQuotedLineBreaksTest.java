package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A time beyond the 64-bit range is a rejected line, and an abort names the physical line after a quoted line break. */
class TimesBeyondInt64AndAfterQuotedLineBreaksTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aTimestampBeyondInt64IsARejectedLine() throws Exception {
        LpProbe.refusedBetweenGoodLines(testkit.server(), dir, "tsbig",
                "tsbig,k=b v=2 9223372036854775808".getBytes(UTF_8));
    }

    @Test
    void anAbortNamesThePhysicalLineAfterAQuotedLineBreak() throws Exception {
        Path f = dir.resolve("abortnl.lp");
        Files.writeString(f, "abortnl s=\"a\nb\" 1\nabortnl v=x 2\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("abortnl.lp' line 3"), r.toString());
    }
}
