package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Integers too large for Int64 are inferred as types that keep every digit, never as Float64, which rounds them. */
class IntegersBeyondInt64Test {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private static final String GIANT = "1234567890123456789012345678901234567890";

    @Test
    void unsignedOnesBecomeUInt64SignedOnesADecimalAndLongerOnesText() throws Exception {
        Path f = dir.resolve("bigints.csv");
        Files.writeString(f, "id,u,d,g,ts\n"
                + "1,18446744073709551615,-9223372036854775809," + GIANT + ",1700000000001\n"
                + "2,1,99999999999999999999999999999999999999,-" + GIANT + ",1700000000002\n");
        Cli.Run dry = Cli.run(Cli.at(testkit.server(), "--dry-run", "--tags", "id", f.toString()));
        assertEquals(0, dry.code(), dry.toString());
        assertTrue(dry.out().contains("\"u\" BIGINT UNSIGNED"), dry.out());
        assertTrue(dry.out().contains("\"d\" DECIMAL(38, 0)"), dry.out());
        assertTrue(dry.out().contains("\"g\" STRING"), dry.out());

        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema schema = testkit.server().schema("public", "bigints");
        assertEquals(DataType.UInt64, schema.column(schema.indexOf("u")).dataType());
        assertEquals(DataType.Decimal128, schema.column(schema.indexOf("d")).dataType());
        assertEquals(DataType.String, schema.column(schema.indexOf("g")).dataType());
        List<Map<String, Object>> rows = new java.util.ArrayList<>(testkit.server().rows("bigints"));
        rows.sort(Comparator.comparing(m -> m.get("id").toString()));
        assertEquals(new BigInteger("18446744073709551615"), new BigInteger(Long.toUnsignedString(((Number) rows.get(0).get("u")).longValue())));
        assertEquals(0, new BigDecimal("-9223372036854775809").compareTo((BigDecimal) rows.get(0).get("d")), rows.toString());
        assertEquals(0, new BigDecimal("99999999999999999999999999999999999999").compareTo((BigDecimal) rows.get(1).get("d")));
        assertEquals(GIANT, rows.get(0).get("g"));
        assertEquals("-" + GIANT, rows.get(1).get("g"));
    }
}
