package dev.sluice.sink.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sluice.BatchingWriter;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.sql.ServerColumn;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The start-up comparison of the sink's columns with an existing table's, as GreptimeDB's DESC TABLE names them. */
class SchemaCheckTest {
    /** The table as GreptimeDB's DESC TABLE names its columns: name, type, semantic type. */
    private static final List<ServerColumn> DESC = List.of(
            ServerColumn.of("host", "String", "TAG"),
            ServerColumn.of("price", "Decimal(10, 2)", "FIELD"),
            ServerColumn.of("ok", "Boolean", "FIELD"),
            ServerColumn.of("emb", "Vector(3)", "FIELD"),
            ServerColumn.of("ts", "TimestampMillisecond", "TIMESTAMP"));

    private static List<String> check(TableSchema written, BatchingWriter.Path path) throws IOException {
        return SchemaCheck.disagreements(SchemaSpec.of(written), i -> "a type", DESC, path);
    }

    private static TableSchema.Builder base() {
        return TableSchema.newBuilder("t").addTag("host", DataType.String)
                .addColumn("price", SemanticType.Field, DataType.Decimal128, new DecimalType(10, 2)).addField("ok", DataType.Bool)
                .addColumn("emb", SemanticType.Field, DataType.Vector, new dev.sluice.data.VectorType(3));
    }

    @Test
    void theSameColumnsAsTheTableRaiseNothing() throws IOException {
        assertEquals(List.of(),
                check(base().addTimestamp("ts", DataType.TimestampMillisecond).build(), BatchingWriter.Path.Bulk));
    }

    @Test
    void aDecimalOfAnotherPrecisionAndATimestampOfAnotherUnitAreNamedWithBothTypes() throws IOException {
        TableSchema w = TableSchema.newBuilder("t").addTag("host", DataType.String)
                .addColumn("price", SemanticType.Field, DataType.Decimal128, new DecimalType(12, 2))
                .addTimestamp("ts", DataType.TimestampMicrosecond).build();
        assertEquals(List.of(
                "column price is a type, written as Decimal(12, 2), but Decimal(10, 2) in GreptimeDB's table: give the"
                        + " sink's column a type written as Decimal(10, 2) (cast it), or write to a table whose column"
                        + " is Decimal(12, 2)",
                "column ts is a type, written as TimestampMicrosecond, but TimestampMillisecond in GreptimeDB's table:"
                        + " give the sink's column a type written as TimestampMillisecond (cast it), or write to a"
                        + " table whose column is TimestampMicrosecond"), check(w, BatchingWriter.Path.Regular));
    }

    @Test
    void aTimeIndexOfAnotherNameIsRefusedOnEitherPath() throws IOException {
        TableSchema w = TableSchema.newBuilder("t").addTag("host", DataType.String)
                .addTimestamp("event_time", DataType.TimestampMillisecond).build();
        assertEquals(List.of("column event_time is the time index of the sink, but the table's time index is ts:"
                + " write the time index into ts"), check(w, BatchingWriter.Path.Regular));
    }

    @Test
    void aMissingFieldIsAddedOnTheRegularPathButRefusedOnTheBulkPath() throws IOException {
        TableSchema w = base().addField("extra", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        assertEquals(List.of(), check(w, BatchingWriter.Path.Regular));
        assertEquals(1, check(w, BatchingWriter.Path.Bulk).size());
    }

    @Test
    void theDefaultHttpEndpointIsTheFirstHostAtPort4000() {
        assertEquals("http://greptime-1:4000", ServerTable.baseUrl(settings(false, "")));
        assertEquals("https://greptime-1:4000", ServerTable.baseUrl(settings(true, "")));
        assertEquals("http://other:4100", ServerTable.baseUrl(settings(true, "http://other:4100/")));
        assertNull(ServerTable.baseUrl(settings(false, "none")));
    }

    private static SinkSettings settings(boolean tls, String http) {
        return new SinkSettings(List.of("greptime-1:4001", "greptime-2:4001"), "public", "", "", tls, "", "", "", "",
                "UTC", Duration.ofSeconds(1), 0, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1),
                BatchingWriter.Path.Regular, 10, 100, Duration.ofMillis(1), 1, 10, "none", Map.of(), http, "",
                new SinkSettings.Wording("retry.timeout", "the job fails", "run it again"));
    }
}
