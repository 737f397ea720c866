package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Under skip, a row the server refuses (a time its partitions cannot hold) is rejected and every other row stored. */
class RefusedRowsAreIsolatedUnderSkipTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aTimeBeyondThePartitionsIsRejectedAndTheOtherTablesRowsAreStored() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "part",
                ("lpb_mem used=1 1000\nlpb_cpu value=1 9223372036854775806\nlpb_disk free=2 1000\n"
                        + "lpb_net rx=3i 1000\nlpb_cpu value=2 2000\n").getBytes(UTF_8));
        assertEquals(1, r.run().code(), r.toString());
        assertEquals(1, LpProbe.rowsByTime(testkit.server(), "lpb_mem").size(), r.toString());
        assertEquals(1, LpProbe.rowsByTime(testkit.server(), "lpb_disk").size(), r.toString());
        assertEquals(1, LpProbe.rowsByTime(testkit.server(), "lpb_net").size(), r.toString());
        assertEquals(1, LpProbe.rowsByTime(testkit.server(), "lpb_cpu").size(), r.toString());
        assertEquals(1, r.rejects().size(), r.toString());
        assertTrue(r.rejects().get(0).contains("\"line\":2"), r.toString());
        assertTrue(r.run().out().contains("4 written"), r.toString());
    }
}
