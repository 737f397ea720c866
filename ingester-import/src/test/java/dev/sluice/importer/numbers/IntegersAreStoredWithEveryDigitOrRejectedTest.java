package dev.sluice.importer.numbers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An integer in a CSV or JSON Lines input is stored with every digit, or its row is rejected naming the column and
 * the value: a column holding integers beyond Int64 is never Float64 (which rounds them), and an integer a Float64
 * column cannot hold exactly (beyond 2^53) is not rounded into it without a word.
 */
class IntegersAreStoredWithEveryDigitOrRejectedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private Cli.Run importFile(String table, String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return Cli.run(Cli.at(testkit.server(), "--table", table, "--on-error", "skip", "--state",
                dir.resolve(table + ".state").toString(), f.toString()));
    }

    /** The stored value of column v at the time, or null when no row holds that time. */
    private Object storedV(String table, long ts) {
        for (Map<String, Object> m : testkit.server().rows(table)) {
            if (Long.valueOf(ts).equals(m.get("ts"))) {
                return m.get("v");
            }
        }
        return null;
    }

    private void assertExactOrRejected(String table, Cli.Run r, long ts, String written) {
        Object v = storedV(table, ts);
        if (v == null) {
            assertTrue(r.code() == 1 && r.err().contains("'v'") && r.err().contains(written),
                    "the row is neither stored nor rejected naming column and value: " + r);
            return;
        }
        assertTrue(new BigDecimal(v.toString()).compareTo(new BigDecimal(written)) == 0,
                "the input wrote " + written + ", the table holds " + v + " (" + v.getClass().getSimpleName()
                        + ") and the import said nothing: " + r);
    }

    @Test
    void aCsvIntegerBeyondInt64BesideALongFractionIsNotRoundedToFloat64() throws Exception {
        Cli.Run r = importFile("beyond_long_fraction", "beyond_long_fraction.csv",
                "ts,v\n1700000000000,1.123456789012345678901\n1700000000001,12345678901234567890123\n");
        assertExactOrRejected("beyond_long_fraction", r, 1_700_000_000_001L, "12345678901234567890123");
    }

    @Test
    void aCsvIntegerBeyondInt64BesideAnExponentIsNotRoundedToFloat64() throws Exception {
        Cli.Run r = importFile("beyond_exponent", "beyond_exponent.csv",
                "ts,v\n1700000000000,1e3\n1700000000001,12345678901234567890123\n");
        assertExactOrRejected("beyond_exponent", r, 1_700_000_000_001L, "12345678901234567890123");
    }

    @Test
    void aCsvIntegerAFloat64ColumnCannotHoldIsNotRounded() throws Exception {
        Cli.Run r = importFile("beyond_2_53_csv", "beyond_2_53_csv.csv",
                "ts,v\n1700000000000,1.5\n1700000000001,9007199254740993\n");
        assertExactOrRejected("beyond_2_53_csv", r, 1_700_000_000_001L, "9007199254740993");
    }

    @Test
    void aJsonIntegerAFloat64ColumnCannotHoldIsNotRounded() throws Exception {
        Cli.Run r = importFile("beyond_2_53_json", "beyond_2_53_json.jsonl",
                "{\"ts\":1700000000000,\"v\":1.5}\n{\"ts\":1700000000001,\"v\":9007199254740993}\n");
        assertExactOrRejected("beyond_2_53_json", r, 1_700_000_000_001L, "9007199254740993");
    }
}
