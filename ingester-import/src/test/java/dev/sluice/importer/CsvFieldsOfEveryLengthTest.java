package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
 * CSV fields short and long (numbers and tags are read from the record's characters, long text is kept as text)
 * arrive as written: quoted or not, holding delimiters, quotes and line breaks, and the null token only unquoted.
 */
class CsvFieldsOfEveryLengthTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void everyFieldIsStoredAsWrittenWhateverItsLength() throws Exception {
        String longText = "a long line, with \"quotes\", commas and\na line break: " + "x".repeat(200);
        String longNa = "NA".repeat(40);
        Path f = dir.resolve("lengths.csv");
        Files.writeString(f, "id,ts,n,d,short,long\n"
                + "1,1700000000001,-42,-0.5,NA,\"" + longText.replace("\"", "\"\"") + "\"\n"
                + "2,1700000000002,123456789012345678,1e3,\"NA\"," + longNa + "\n"
                + "3,1700000000003,+7,  2.25 ,h,\"\"\n"
                + "4,1700000000004,0000000000000000000009,.5,NA,NA\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--null", "NA", "--types",
                "n:Int64,d:Float64,short:String,long:String", f.toString()));
        assertEquals(0, r.code(), r.toString());
        List<Map<String, Object>> rows = new ArrayList<>(testkit.server().rows("lengths"));
        rows.sort(Comparator.comparing(m -> ((Number) m.get("id")).longValue()));
        assertEquals(4, rows.size(), rows.toString());
        assertEquals(List.of(-42L, 123456789012345678L, 7L, 9L), rows.stream().map(m -> m.get("n")).toList());
        assertEquals(List.of(-0.5, 1000.0, 2.25, 0.5), rows.stream().map(m -> m.get("d")).toList());
        assertNull(rows.get(0).get("short"), "an unquoted null token is NULL");
        assertEquals("NA", rows.get(1).get("short"), "a quoted one is text");
        assertEquals("h", rows.get(2).get("short"));
        assertNull(rows.get(3).get("short"));
        assertEquals(longText, rows.get(0).get("long"));
        assertEquals(longNa, rows.get(1).get("long"), "a long field that only begins like the null token is text");
        assertEquals("", rows.get(2).get("long"), "a quoted empty field is an empty string");
        assertNull(rows.get(3).get("long"));
    }
}
