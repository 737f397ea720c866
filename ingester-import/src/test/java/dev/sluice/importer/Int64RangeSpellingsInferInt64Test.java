package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
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
 * Integers whose values fit Int64 are Int64, however they are spelled: Int64's smallest value, a leading plus sign,
 * leading zeros. Only values beyond Int64 take UInt64 or a decimal.
 */
class Int64RangeSpellingsInferInt64Test {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void csvIntegersInsideInt64AreInt64() throws Exception {
        Path f = dir.resolve("spellings.csv");
        Files.writeString(f, "id,ts,minimum,plus,zeros,negzeros\n"
                + "1,1700000000001,-9223372036854775808,+9223372036854775807,000000000000000000000001,-000000000000000000000001\n"
                + "2,1700000000002,1,2,2,-2\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema schema = testkit.server().schema("public", "spellings");
        List<String> wrong = new ArrayList<>();
        for (String c : List.of("minimum", "plus", "zeros", "negzeros")) {
            DataType t = schema.column(schema.indexOf(c)).dataType();
            if (t != DataType.Int64) {
                wrong.add(c + " " + t);
            }
        }
        assertEquals(List.of(), wrong, "columns of integers inside Int64 inferred otherwise");
        List<Map<String, Object>> rows = new ArrayList<>(testkit.server().rows("spellings"));
        rows.sort(Comparator.comparing(m -> ((Number) m.get("id")).longValue()));
        assertEquals(Long.MIN_VALUE, ((Number) rows.get(0).get("minimum")).longValue(), rows.toString());
        assertEquals(Long.MAX_VALUE, ((Number) rows.get(0).get("plus")).longValue(), rows.toString());
        assertEquals(1L, ((Number) rows.get(0).get("zeros")).longValue(), rows.toString());
        assertEquals(-1L, ((Number) rows.get(0).get("negzeros")).longValue(), rows.toString());
    }
}
