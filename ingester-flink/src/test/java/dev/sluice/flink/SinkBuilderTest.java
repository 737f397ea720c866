package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

/** What the DataStream builder refuses before a job is submitted, and that a built sink serializes. */
class SinkBuilderTest {
    static final TableSchema DOCS = TableSchema.newBuilder("docs").addTag("id", DataType.String)
            .addField("body", DataType.Json).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void aJsonColumnOnTheBulkPathIsRefusedNamingTableAndColumn() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GreptimeSink.<String>builder()
                .endpoints("127.0.0.1:4001").writePath(WritePath.BULK).table(DOCS, (s, row) -> row.setString(0, s))
                .build());
        assertTrue(e.getMessage().contains("table docs, column body"), e.getMessage());
    }

    @Test
    void missingEndpointsAndMappingAreRefused() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GreptimeSink.<String>builder()
                .table(DOCS, (s, row) -> row.setString(0, s)).build()).getMessage().contains("endpoint"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GreptimeSink.<String>builder()
                .endpoints("127.0.0.1:4001").build()).getMessage().contains("no mapping"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GreptimeSink.<String>builder()
                .endpoints("localhost").table(DOCS, (s, row) -> row.setString(0, s)).build()).getMessage()
                .contains("not host:port"));
    }

    @Test
    void aBuiltSinkSerializesAndHidesThePassword() throws Exception {
        GreptimeSink<String> sink = GreptimeSink.<String>builder().endpoints("127.0.0.1:4001").auth("u", "s3cret")
                .table(DOCS, (s, row) -> row.setString(0, s)).build();
        try (ObjectOutputStream out = new ObjectOutputStream(new ByteArrayOutputStream())) {
            out.writeObject(sink);
        }
        assertTrue(!sink.toString().contains("s3cret"), sink.toString());
    }
}
