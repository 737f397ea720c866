package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --types ts:TimestampMillisecond} names the type the time column is stored as; the column named {@code ts}
 * stays the time index, and its epoch values are read as they are without the override.
 */
class TimeColumnTypeOverrideTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void anEpochColumnNamedTsTypedAsATimestampIsTheTimeIndex() throws IOException {
        Path f = dir.resolve("typed_epoch.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000001\n2,2.5,1700000000002\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "ts:TimestampMillisecond", f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema("typed_epoch");
        assertEquals(List.of("id", "v", "ts"), s.columns().stream().map(TableSchema.Column::name).toList());
        assertEquals(SemanticType.Timestamp, s.column(s.indexOf("ts")).semanticType());
        assertEquals(List.of(1_700_000_000_001L, 1_700_000_000_002L), testkit.server().rows("typed_epoch").stream()
                .map(m -> (Long) m.get("ts")).sorted().toList());
    }

    @Test
    void anIsoColumnNamedTsTypedAsATimestampIsTheTimeIndex() throws IOException {
        Path f = dir.resolve("typed_iso.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,2024-01-01T00:00:00Z\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--types", "ts:TimestampMillisecond", f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema("typed_iso");
        assertEquals(List.of("id", "v", "ts"), s.columns().stream().map(TableSchema.Column::name).toList());
        assertEquals(SemanticType.Timestamp, s.column(s.indexOf("ts")).semanticType());
    }

    @Test
    void withTheTimeIndexNamedTheOverrideKeepsTheEpochValues() throws IOException {
        Path f = dir.resolve("named_epoch.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000001\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--time-index", "ts", "--types",
                "ts:TimestampMillisecond", f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema("named_epoch");
        assertEquals(List.of("id", "v", "ts"), s.columns().stream().map(TableSchema.Column::name).toList());
        assertEquals(1_700_000_000_001L, testkit.server().rows("named_epoch").get(0).get("ts"));
    }
}
