package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.ServerAndClientAccess;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.function.Executable;

/**
 * After {@link BulkStreamWriter#close()}, a batch still held by the caller (with rows, completed, or with a typed row
 * open) takes nothing: adding rows, tables or typed values, sending and completing throw an
 * {@link IllegalStateException} naming the table, marking it complete changes nothing, and neither the writer nor the
 * client holds any off-heap memory afterwards.
 */
class EveryCallOnTheBatchOfAClosedBulkWriterIsRefusedAndHoldsNoMemoryTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("v", DataType.Int64)
                .addField("msg", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    /** 0: rows added; 1: rows added and the batch completed; 2: a typed row open; 3: no row ever added. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void callsAfterCloseAreRefusedAndNothingIsAllocated(int state) throws Exception {
        String table = "after_close_" + state;
        try (var sc = ServerAndClientAccess.start()) {
            BulkStreamWriter w = sc.db().bulkStreamWriter(schema(table), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().build());
            TableBufferRoot batch = w.tableBufferRoot(1_000);
            RowAppender a = batch.appender();
            if (state != 3) {
                for (long i = 0; i < 100; i++) {
                    batch.addRow("h", i, "message " + i, i);
                }
            }
            if (state == 1) {
                batch.complete();
            }
            if (state == 2) {
                a.setString(0, "open").setLong(1, 7L);
            }
            w.close();
            Await.until("the closed writer holds no memory", BOUND, () -> w.allocatedBytes() == 0);

            Table more = Table.from(schema(table)).addRow("h", 1L, "x", 1L);
            refused(table, "addRow", () -> batch.addRow("h", 1L, "late", 1L));
            refused(table, "addTable", () -> batch.addTable(more));
            refused(table, "appender row", () -> a.setString(0, "late").setLong(1, 1L).setString(2, "late")
                    .setLong(3, 1L).endRow());
            refused(table, "writeNext", w::writeNext);
            refused(table, "completed", w::completed);
            refused(table, "tableBufferRoot", () -> w.tableBufferRoot(10));
            try {
                batch.complete();
            } catch (IllegalStateException fine) {
                // refusing is as good as doing nothing
            }
            assertEquals(0, w.allocatedBytes(), "the closed writer allocated nothing again");
            w.close();
            Await.until("the client holds no bulk memory", BOUND, () -> sc.db().stats().bulkAllocatedBytes() == 0);
            assertEquals(0, sc.server().tables().contains(table) ? sc.server().rowCount(table) : 0,
                    "nothing of the closed writer was stored");
        }
    }

    private static void refused(String table, String what, Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call, what + " after close");
        assertTrue(String.valueOf(e.getMessage()).contains(table), what + ": " + e.getMessage());
    }

}
