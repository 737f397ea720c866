package dev.sluice.bulk.values;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.ServerAndClientAccess;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code TableBufferRoot.addTable} refuses a table whose schema differs from the batch's (one column typed
 * otherwise) with an {@link IllegalArgumentException} naming the table and the differing column, adds none of its
 * rows, and the batch sends the rows it held and a matching table's rows afterwards.
 */
class ATableOfAnotherSchemaIsRefusedByAddTableNamingTheColumnAndTheBatchKeepsItsRowsTest {
    private static final String TABLE = "add_table_mismatch";

    static TableSchema schema(DataType usage) {
        return TableSchema.newBuilder(TABLE).addTag("host", DataType.String).addField("usage", usage)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @Test
    void theTableIsRefusedAndTheBatchKeepsItsRows() throws Exception {
        refuseAndSend(false);
    }

    @Test
    void theRefusalNamesTheDifferingColumn() throws Exception {
        refuseAndSend(true);
    }

    private static void refuseAndSend(boolean columnNamed) throws Exception {
        try (var sc = ServerAndClientAccess.start()) {
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema(DataType.Float64),
                    BulkWrite.Config.newBuilder().build(), Context.newBuilder().build())) {
                TableBufferRoot batch = w.tableBufferRoot(16);
                batch.addRow("h", 0.5, 1L).addRow("h", 1.5, 2L);
                Table other = Table.from(schema(DataType.Int64)).addRow("h", 7L, 3L).addRow("h", 8L, 4L);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> batch.addTable(other));
                assertTrue(e.getMessage().contains(TABLE), e.getMessage());
                if (columnNamed) {
                    assertTrue(e.getMessage().contains("usage"), "names the differing column: " + e.getMessage());
                }
                assertEquals(2, batch.rowCount(), "no row of the refused table was added");
                batch.addTable(Table.from(schema(DataType.Float64)).addRow("h", 2.5, 5L));
                assertEquals(3, w.writeNext().get(30, TimeUnit.SECONDS));
                assertEquals(3, w.completed());
            }
            assertEquals(3, sc.server().rowCount(TABLE));
        }
    }
}
