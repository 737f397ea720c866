package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signed and unsigned integers of one field, and a type that first appears far beyond the sample, are each stored
 * exactly or rejected as a row: never wrapped, never rounded, never a stop under skip.
 */
class IntegerKindsAndLateTypesAreNotLostTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aNegativeIntegerIntoAnUnsignedFieldIsRejectedNotWrapped() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "uneg", "uneg v=1u 1\nuneg v=-2i 2\n".getBytes(UTF_8));
        assertNotEquals(3, r.run().code(), r.toString());
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "uneg");
        for (Map<String, Object> m : rows) {
            Object v = m.get("v");
            assertTrue(v == null || v.equals(BigInteger.ONE) || v.equals(-2L) || v.equals(-2.0), rows.toString());
        }
        assertEquals(2, rows.size() + r.rejects().size(), r.toString());
    }

    @Test
    void aLargeUnsignedAfterSignedIntegersIsStoredExactlyOrRejected() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "ubig",
                "ubig v=1i 1\nubig v=18446744073709551615u 2\n".getBytes(UTF_8));
        assertNotEquals(3, r.run().code(), r.toString());
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "ubig");
        for (Map<String, Object> m : rows) {
            if ((Long) m.get("greptime_timestamp") == 2L) {
                assertEquals("18446744073709551615", String.valueOf(m.get("v")), rows.toString());
            }
        }
        assertEquals(2, rows.size() + r.rejects().size(), r.toString());
    }

    @Test
    void exactlyRepresentableIntegersGoIntoAFloatColumn() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "fexact",
                "fexact v=0.5 1\nfexact v=9007199254740992i 2\nfexact v=-9223372036854775808i 3\n".getBytes(UTF_8));
        assertEquals(0, r.run().code(), r.toString());
        assertEquals(List.of(0.5, 9007199254740992.0, -9223372036854775808.0),
                LpProbe.rowsByTime(testkit.server(), "fexact").stream().map(m -> m.get("v")).toList());
    }

    @Test
    void aFloatFarBeyondTheSampleIntoAnIntegerColumnIsOneRejectedRow() throws Exception {
        StringBuilder sb = new StringBuilder();
        int n = 30_000;
        for (int i = 1; i <= n; i++) {
            sb.append("late v=").append(i).append("i ").append(i).append('\n');
        }
        sb.append("late v=0.5 ").append(n + 1).append('\n');
        sb.append("late v=7i ").append(n + 2).append('\n');
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "late", sb.toString().getBytes(UTF_8));
        assertNotEquals(3, r.run().code(), r.toString());
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "late");
        assertEquals(n + 2, rows.size() + r.rejects().size(), r.run().toString());
        if (!r.rejects().isEmpty()) {
            assertEquals(1, r.rejects().size());
            assertTrue(r.rejects().get(0).contains("\"line\":" + (n + 1)), r.rejects().get(0));
        }
    }
}
