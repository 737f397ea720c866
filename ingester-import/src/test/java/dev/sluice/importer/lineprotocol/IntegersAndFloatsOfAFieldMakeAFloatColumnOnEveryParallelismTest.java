package dev.sluice.importer.lineprotocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files read side by side whose lines give one field as an integer and as a float: the column is Float64 before
 * either file's rows are sent, every row is stored, whatever the parallelism and whichever file is read first.
 */
class IntegersAndFloatsOfAFieldMakeAFloatColumnOnEveryParallelismTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void bothFilesRowsAreStoredInAFloatColumn(int parallelism) throws IOException {
        String table = "lpconf" + parallelism;
        Path a = dir.resolve("a.lp");
        Path b = dir.resolve("b.lp");
        Files.writeString(a, table + " v=1i 1000\n" + table + " v=3i 3000\n");
        Files.writeString(b, table + " v=1.5 2000\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--on-error", "skip", "--parallelism",
                Integer.toString(parallelism), a.toString(), b.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema(table);
        assertEquals(DataType.Float64, s.column(s.indexOf("v")).dataType());
        assertEquals(List.of(1.0, 1.5, 3.0), LineProtocolRuns.rows(testkit.server(), table).stream()
                .map(m -> m.get("v")).toList());
    }
}
