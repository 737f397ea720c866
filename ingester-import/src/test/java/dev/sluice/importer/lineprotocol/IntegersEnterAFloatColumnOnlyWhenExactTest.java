package dev.sluice.importer.lineprotocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** An integer goes into a float column only when the float holds it exactly; otherwise the line names column and value. */
class IntegersEnterAFloatColumnOnlyWhenExactTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void anIntegerAFloat64CannotHoldIsARejectedLine() {
        LineProtocolRuns.Skipped r = LineProtocolRuns.skip(testkit.server(), dir, "prec.lp",
                "lpprec v=1.5 1\nlpprec v=9007199254740993i 3\nlpprec v=9007199254740992i 4\n"
                        + "lpprec v=18446744073709551615u 5\n");
        assertEquals(1, r.run().code(), r.run().toString());
        assertEquals(List.of(1.5, 9007199254740992.0), LineProtocolRuns.rows(testkit.server(), "lpprec").stream()
                .map(m -> m.get("v")).toList());
        assertEquals(2, r.rejects().size(), r.rejects().toString());
        assertTrue(r.rejects().get(0).contains("\"line\":2") && r.rejects().get(0).contains("'v'")
                && r.rejects().get(0).contains("9007199254740993"), r.rejects().get(0));
        assertTrue(r.rejects().get(1).contains("\"line\":4") && r.rejects().get(1).contains("18446744073709551615"),
                r.rejects().get(1));
    }
}
