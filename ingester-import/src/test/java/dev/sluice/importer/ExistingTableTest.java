package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Context;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** An existing table decides the column types; columns it lacks are added (regular) or reported (bulk). */
class ExistingTableTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static void create(TableSchema schema) {
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(testkit.server().endpoint(),
                "public").build())) {
            assertTrue(db.createTable(schema, Context.newBuilder().build()).join().isOk());
        }
    }

    @Test
    void valuesAreConvertedToTheTablesOwnTypesAndItsOtherColumnsStayNull() throws IOException {
        create(TableSchema.newBuilder("typed").addTag("host", DataType.String).addField("cpu", DataType.Float32)
                .addField("count", DataType.Int32).addField("note", DataType.String)
                .addTimestamp("ts", DataType.TimestampSecond).build());
        Path f = dir.resolve("typed.csv");
        Files.writeString(f, "host,cpu,count,ts\nh1,0.5,7,2024-01-01T00:00:05Z\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(0, r.code(), r.toString());
        Map<String, Object> row = testkit.server().rows("typed").get(0);
        assertEquals("h1", row.get("host"));
        assertEquals(0.5f, row.get("cpu"));
        assertEquals(7L, row.get("count"));
        assertNull(row.get("note"));
        assertEquals(Instant.parse("2024-01-01T00:00:05Z").getEpochSecond(), row.get("ts"));
        assertEquals(DataType.Float32, testkit.server().schema("typed").column(1).dataType());
    }

    @Test
    void theBulkPathReportsMissingColumnsWithTheFixBeforeSendingAnything() throws IOException {
        create(TableSchema.newBuilder("fewer_bulk").addTag("host", DataType.String).addField("cpu", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build());
        Path f = dir.resolve("fewer_bulk.csv");
        Files.writeString(f, "host,cpu,mem,ts\nh1,0.5,12.5,2024-01-01T00:00:00Z\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("ALTER TABLE \"fewer_bulk\" ADD COLUMN \"mem\" DOUBLE;"), r.err());
        assertTrue(r.err().contains("--path regular"), r.err());
        assertEquals(0, testkit.server().rowCount("fewer_bulk"));
    }

    @Test
    void theRegularPathAddsTheMissingColumns() throws IOException {
        create(TableSchema.newBuilder("fewer_regular").addTag("host", DataType.String).addField("cpu", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build());
        Path f = dir.resolve("fewer_regular.csv");
        Files.writeString(f, "host,cpu,mem,ts\nh1,0.5,12.5,2024-01-01T00:00:00Z\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--path", "regular", f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema("fewer_regular");
        assertEquals(DataType.Float64, s.column(s.indexOf("mem")).dataType());
        List<Map<String, Object>> rows = testkit.server().rows("fewer_regular");
        assertEquals(12.5, rows.get(0).get("mem"));
        assertEquals(0.5, rows.get(0).get("cpu"));
    }

    @Test
    void aTableWhoseTimeIndexTheInputLacksNamesTheRename() throws IOException {
        create(TableSchema.newBuilder("other_ts").addField("v", DataType.Float64)
                .addTimestamp("event_ts", DataType.TimestampMillisecond).build());
        Path f = dir.resolve("other_ts.csv");
        Files.writeString(f, "v,ts\n1,2024-01-01T00:00:00Z\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("--rename <column>=event_ts"), r.err());
        Cli.Run fixed = Cli.run(Cli.at(testkit.server(), "--rename", "ts=event_ts", f.toString()));
        assertEquals(0, fixed.code(), fixed.toString());
        assertEquals(Instant.parse("2024-01-01T00:00:00Z").toEpochMilli(),
                testkit.server().rows("other_ts").get(0).get("event_ts"));
    }
}
