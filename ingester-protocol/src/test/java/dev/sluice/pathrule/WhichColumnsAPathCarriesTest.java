package dev.sluice.pathrule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter.Path;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.data.VectorType;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One rule says which columns a write path carries: the regular path all, the bulk path all but JSON and Vector. */
class WhichColumnsAPathCarriesTest {
    @Test
    void theRegularPathCarriesEveryTypeAndTheBulkPathAllButJsonAndVector() {
        for (DataType t : DataType.values()) {
            assertTrue(Path.Regular.carries(t), t.name());
            assertEquals(t != DataType.Json && t != DataType.Vector, Path.Bulk.carries(t), t.name());
        }
    }

    @Test
    void theFirstColumnTheBulkPathCannotCarryIsNamedWithItsTable() {
        TableSchema s = TableSchema.newBuilder("events").addTag("host", DataType.String)
                .addField("payload", DataType.Json).addColumn("embedding", dev.sluice.data.SemanticType.Field,
                        DataType.Vector, new VectorType(3))
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        assertEquals(Optional.of("payload"), Path.Bulk.firstUncarried(s).map(TableSchema.Column::name));
        assertEquals(Optional.empty(), Path.Regular.firstUncarried(s));
        Path.Regular.check(s);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Path.Bulk.check(s));
        assertTrue(e.getMessage().startsWith("table 'events', column 'payload': Json columns cannot be bulk written"),
                e.getMessage());
        assertTrue(e.getMessage().contains("regular path"), e.getMessage());
    }

    @Test
    void aSchemaOfCarriedTypesPassesTheBulkCheck() {
        TableSchema s = TableSchema.newBuilder("cpu").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        assertFalse(Path.Bulk.firstUncarried(s).isPresent());
        Path.Bulk.check(s);
    }
}
