package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CSV file with a byte order mark and CR LF line ends, quoted values holding delimiters, doubled quotes and line
 * breaks, non-ASCII text, a byte that is not UTF-8, doubles in every notation (exponents, -0.0, NaN, the smallest
 * and largest, a decimal with more digits than a double holds) and Int64's limits: every cell is stored as written, a byte that is
 * not UTF-8 as U+FFFD.
 */
class CsvCellsFromBytesArriveAsWrittenTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void everyCellIsStoredAsWritten() throws IOException {
        String[][] rows = {
            {"1", "plain", "0.1", "0"},
            {"2", "\"a,b\"", "-0.0", "9223372036854775807"},
            {"3", "\"say \"\"hi\"\"\r\nagain\"", "9.6630859375E8", "-9223372036854775808"},
            {"4", "東京 ✓", "1e308", "-1"},
            {"5", "\"\"", "4.9e-324", "123456789012345678"},
            {"6", "tab\there", "1.7976931348623157e308", "42"},
            {"7", "x", "NaN", "7"},
            {"8", "y", "123456789012345678901234567890.5", "8"},
            {"9", "z", "-1.5E-7", "9"},
            {"10", "w", "30.46875", "10"},
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        out.write("id,s,d,n\r\n".getBytes(StandardCharsets.UTF_8));
        for (String[] r : rows) {
            out.write(String.join(",", r).getBytes(StandardCharsets.UTF_8));
            out.write("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.write(new byte[] {'1', '1', ',', 'b', (byte) 0xFF, 'd', ',', '1', ',', '1', '\r', '\n'});
        Path f = dir.resolve("cells.csv");
        Files.write(f, out.toByteArray());

        Cli.Run run = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "id:Int64,s:String,d:Float64,n:Int64",
                f.toString()));
        assertEquals(0, run.code(), run.toString());

        Map<Long, Map<String, Object>> stored = new TreeMap<>();
        testkit.server().rows("cells").forEach(m -> stored.put((Long) m.get("id"), m));
        assertEquals(rows.length + 1, stored.size(), stored.toString());
        String[] texts = {"plain", "a,b", "say \"hi\"\r\nagain", "東京 ✓", "", "tab\there", "x", "y", "z", "w"};
        for (int i = 0; i < rows.length; i++) {
            Map<String, Object> m = stored.get((long) (i + 1));
            assertEquals(texts[i], m.get("s"), "row " + (i + 1));
            double expected = Double.parseDouble(rows[i][2]);
            assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits((Double) m.get("d")),
                    "row " + (i + 1) + ": " + rows[i][2] + " stored as " + m.get("d"));
            assertEquals(Long.parseLong(rows[i][3]), m.get("n"), "row " + (i + 1));
        }
        assertEquals("b\uFFFDd", stored.get(11L).get("s"));
        assertTrue(Double.isNaN((Double) stored.get(7L).get("d")));
    }
}
