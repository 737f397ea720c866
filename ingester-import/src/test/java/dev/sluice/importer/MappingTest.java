package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Inference, the dry run, and the options that override it. */
class MappingTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aDryRunPrintsTheInferredCreateTableAndTheFirstRowsAndWritesNothing() throws IOException {
        Path f = dir.resolve("dry.csv");
        Files.writeString(f, "time,host,usage,up,msg\n"
                + "2024-01-01T00:00:00.123456Z,a,1,true,hello\n"
                + "2024-01-01T00:00:01Z,b,2.5,false,\n"
                + "2024-01-01T00:00:02Z,c,x,true,bye\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "host", "--with", "ttl=7d", "--dry-run", f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertEquals("CREATE TABLE IF NOT EXISTS \"dry\" (\n"
                + "  \"time\" TIMESTAMP(6) NOT NULL,\n"
                + "  \"host\" STRING,\n"
                + "  \"usage\" STRING,\n"
                + "  \"up\" BOOLEAN,\n"
                + "  \"msg\" STRING,\n"
                + "  TIME INDEX (\"time\"),\n"
                + "  PRIMARY KEY (\"host\")\n"
                + ") WITH ('ttl' = '7d');\n"
                + "-- path: bulk\n"
                + "-- time index: time from 'time' as iso\n"
                + "-- first rows as stored:\n"
                + "time\thost\tusage\tup\tmsg\n"
                + "2024-01-01T00:00:00.123456Z\ta\t1\ttrue\thello\n"
                + "2024-01-01T00:00:01Z\tb\t2.5\tfalse\tNULL\n"
                + "2024-01-01T00:00:02Z\tc\tx\ttrue\tbye\n", r.out());
        assertFalse(testkit.server().tables().contains("dry"));
        assertFalse(Files.exists(dir.resolve("dry.csv.import-state.json")));
    }

    @Test
    void integersDecimalsBooleansAndTimesAreInferredFromTheSample() throws IOException {
        Path f = dir.resolve("inferred.csv");
        Files.writeString(f, "ts,i,d,b,s,when\n1700000000,1,1.5,TRUE,x,2024-01-01 10:00:00\n"
                + "1700000001,-2,2,false,3,2024-01-01 10:00:01\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema("inferred");
        assertEquals(DataType.TimestampSecond, s.column(s.indexOf("ts")).dataType());
        assertEquals(SemanticType.Timestamp, s.column(s.indexOf("ts")).semanticType());
        assertEquals(DataType.Int64, s.column(s.indexOf("i")).dataType());
        assertEquals(DataType.Float64, s.column(s.indexOf("d")).dataType());
        assertEquals(DataType.Bool, s.column(s.indexOf("b")).dataType());
        assertEquals(DataType.String, s.column(s.indexOf("s")).dataType());
        assertEquals(DataType.TimestampMillisecond, s.column(s.indexOf("when")).dataType());
        List<Map<String, Object>> rows = testkit.server().rows("inferred");
        assertEquals(List.of(1_700_000_000L, 1L, 1.5, true, "x", Instant.parse("2024-01-01T10:00:00Z").toEpochMilli()),
                List.of(rows.get(0).get("ts"), rows.get(0).get("i"), rows.get(0).get("d"), rows.get(0).get("b"),
                        rows.get(0).get("s"), rows.get(0).get("when")));
        assertEquals(List.of(1_700_000_001L, -2L, 2.0, false, "3"), List.of(rows.get(1).get("ts"), rows.get(1).get("i"),
                rows.get(1).get("d"), rows.get(1).get("b"), rows.get(1).get("s")));
    }

    @Test
    void aColumnNamedLikeATimeHoldingEpochsIsTheTimeIndex() throws IOException {
        Path f = dir.resolve("named_time.csv");
        Files.writeString(f, "msg,log_ts\nhello,1704067200000\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema("named_time");
        assertEquals("log_ts", s.column(s.timestampIndex()).name());
        assertEquals(DataType.TimestampMillisecond, s.column(s.timestampIndex()).dataType());
        assertEquals(1704067200000L, testkit.server().rows("named_time").get(0).get("log_ts"));
    }

    @Test
    void typesSkipRenameAndAPatternedTimeInAZoneOverrideInference() throws IOException {
        Path f = dir.resolve("over.csv");
        Files.writeString(f, "when;dev;val;junk\n01/02/2024 10:00:00;d1;5;x\n01/02/2024 10:00:01;7;12.25;y\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--delimiter", ";", "--time-index", "when", "--time-format",
                "dd/MM/yyyy HH:mm:ss", "--timezone", "+02:00", "--types", "val:Decimal(10,2),dev:String", "--skip",
                "junk", "--rename", "when=ts,dev=device", "--tags", "dev", f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema("over");
        assertEquals(java.util.Set.of("ts", "device", "val"), s.columns().stream().map(TableSchema.Column::name)
                .collect(java.util.stream.Collectors.toSet()));
        assertEquals(SemanticType.Tag, s.column(s.indexOf("device")).semanticType());
        assertEquals(SemanticType.Timestamp, s.column(s.indexOf("ts")).semanticType());
        assertEquals(DataType.Decimal128, s.column(s.indexOf("val")).dataType());
        List<Map<String, Object>> rows = testkit.server().rows("over");
        assertEquals(Instant.parse("2024-02-01T08:00:00Z").toEpochMilli(), rows.get(0).get("ts"));
        assertEquals("d1", rows.get(0).get("device"));
        assertEquals(new BigDecimal("5.00"), rows.get(0).get("val"));
        assertEquals("7", rows.get(1).get("device"));
        assertEquals(new BigDecimal("12.25"), rows.get(1).get("val"));
    }

    @Test
    void dataWithoutATimeGetsTheImportsTimeOnePerRow() throws IOException {
        Path f = dir.resolve("notime.csv");
        Files.writeString(f, "k,v\na,1\na,2\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "k", f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema("notime");
        assertEquals("greptime_timestamp", s.column(s.timestampIndex()).name());
        List<Map<String, Object>> rows = testkit.server().rows("notime");
        assertEquals(2, rows.size());
        assertNotEquals(rows.get(0).get("greptime_timestamp"), rows.get(1).get("greptime_timestamp"));
        assertEquals(List.of(1L, 2L), rows.stream().map(m -> m.get("v")).toList());
    }

    @Test
    void anOptionNamingAMissingColumnIsAUsageError() throws IOException {
        Path f = dir.resolve("u.csv");
        Files.writeString(f, "a,ts\n1,2024-01-01T00:00:00Z\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "nope", f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("'nope'") && r.err().contains("a, ts"), r.err());
    }
}
