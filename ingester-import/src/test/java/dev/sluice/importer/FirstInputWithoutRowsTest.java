package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Types are inferred from rows: a first input holding only its header does not decide the table's types. */
class FirstInputWithoutRowsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aHeaderOnlyFirstFileLeavesInferenceToTheRowsOfTheNextFile() throws IOException {
        Path parts = Files.createDirectory(dir.resolve("parts"));
        Files.writeString(parts.resolve("p0.csv"), "id,v,ts\n");
        Files.writeString(parts.resolve("p1.csv"), "id,v,ts\n1,1.5,1700000000001\n2,2.5,1700000000002\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "parts", "--tags", "id", parts.toString()));
        assertEquals(0, r.code(), r.toString());

        TableSchema s = testkit.server().schema("parts");
        assertEquals(List.of("id", "v", "ts"), s.columns().stream().map(TableSchema.Column::name).toList(), s.toString());
        assertEquals(DataType.Float64, s.column(s.indexOf("v")).dataType());
        assertEquals(DataType.TimestampMillisecond, s.column(s.indexOf("ts")).dataType());
        assertEquals(SemanticType.Timestamp, s.column(s.indexOf("ts")).semanticType());
        List<Map<String, Object>> rows = testkit.server().rows("parts");
        assertEquals(2, rows.size());
        assertEquals(1_700_000_000_001L, rows.get(0).get("ts"));
        assertEquals(1.5, rows.get(0).get("v"));
    }
}
