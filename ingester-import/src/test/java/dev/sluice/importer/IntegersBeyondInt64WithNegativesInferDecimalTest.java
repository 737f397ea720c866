package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
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
 * A sampled column holding an integer above Int64's range and a negative one does not fit UInt64: the README
 * promises Decimal128(38, 0) then, so every row, the negative ones too, is stored with all its digits.
 */
class IntegersBeyondInt64WithNegativesInferDecimalTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private void importsEveryRowAsDecimal(Path f, String table) {
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema schema = testkit.server().schema("public", table);
        assertEquals(DataType.Decimal128, schema.column(schema.indexOf("x")).dataType(), schema.toString());
        List<Map<String, Object>> rows = new ArrayList<>(testkit.server().rows(table));
        rows.sort(Comparator.comparing(m -> ((Number) m.get("id")).longValue()));
        assertEquals(3, rows.size(), rows.toString());
        assertEquals(0, new BigDecimal("18446744073709551615").compareTo((BigDecimal) rows.get(0).get("x")), rows.toString());
        assertEquals(0, new BigDecimal("-1").compareTo((BigDecimal) rows.get(1).get("x")), rows.toString());
        assertEquals(0, new BigDecimal("7").compareTo((BigDecimal) rows.get(2).get("x")), rows.toString());
    }

    @Test
    void csv() throws Exception {
        Path f = dir.resolve("mixedsign_csv.csv");
        Files.writeString(f, "id,ts,x\n1,1700000000001,18446744073709551615\n2,1700000000002,-1\n3,1700000000003,7\n");
        importsEveryRowAsDecimal(f, "mixedsign_csv");
    }

    @Test
    void csvNegativeFirst() throws Exception {
        Path f = dir.resolve("mixedsign_neg.csv");
        Files.writeString(f, "id,ts,x\n2,1700000000002,-1\n1,1700000000001,18446744073709551615\n3,1700000000003,7\n");
        importsEveryRowAsDecimal(f, "mixedsign_neg");
    }

    @Test
    void jsonLines() throws Exception {
        Path f = dir.resolve("mixedsign_json.jsonl");
        Files.writeString(f, "{\"id\":1,\"ts\":1700000000001,\"x\":18446744073709551615}\n"
                + "{\"id\":2,\"ts\":1700000000002,\"x\":-1}\n{\"id\":3,\"ts\":1700000000003,\"x\":7}\n");
        importsEveryRowAsDecimal(f, "mixedsign_json");
    }
}
