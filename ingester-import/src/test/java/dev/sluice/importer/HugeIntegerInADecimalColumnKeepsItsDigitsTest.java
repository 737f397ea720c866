package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An integer beyond Int64 is never stored through Float64, which rounds it: also when its sampled column holds a
 * number with a fraction. 99999999999999999999 must not come back as 1.0E20.
 */
class HugeIntegerInADecimalColumnKeepsItsDigitsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private static void storedExactly(String table) {
        List<Map<String, Object>> rows = new ArrayList<>(testkit.server().rows(table));
        rows.sort(Comparator.comparing(m -> ((Number) m.get("id")).longValue()));
        assertEquals(2, rows.size(), rows.toString());
        assertEquals(0, new BigDecimal("1.5").compareTo(new BigDecimal(rows.get(0).get("x").toString())), rows.toString());
        assertEquals(0, new BigDecimal("99999999999999999999").compareTo(new BigDecimal(rows.get(1).get("x").toString())),
                "stored " + rows.get(1).get("x") + " for 99999999999999999999");
    }

    @Test
    void csv() throws Exception {
        Path f = dir.resolve("fracbig_csv.csv");
        Files.writeString(f, "id,ts,x\n1,1700000000001,1.5\n2,1700000000002,99999999999999999999\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString()));
        assertEquals(0, r.code(), r.toString());
        storedExactly("fracbig_csv");
    }

    @Test
    void jsonLines() throws Exception {
        Path f = dir.resolve("fracbig_json.jsonl");
        Files.writeString(f, "{\"id\":1,\"ts\":1700000000001,\"x\":1.5}\n{\"id\":2,\"ts\":1700000000002,\"x\":99999999999999999999}\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString()));
        assertEquals(0, r.code(), r.toString());
        storedExactly("fracbig_json");
    }
}
