package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Readies a client before a test applies a short timeout: its channel is connected and its write paths' classes
 * are loaded, on a table of its own, so that the short timeout governs only the write it is meant for and not the
 * first connection or class loading of a loaded machine. The warm-up writes are not in append mode and use the
 * default retry policy, so one that times out is resent until it is stored.
 */
public final class Warm {
    /** The table the warm-up rows go to; tests count their own tables only. */
    public static final String TABLE = "warm_up";

    private static final TableSchema SCHEMA = TableSchema.newBuilder(TABLE).addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final AtomicLong TS = new AtomicLong(1_600_000_000_000L);

    private Warm() {
    }

    /**
     * Connects the client and loads the regular path with one stored row.
     *
     * @param db the client a short timeout is applied to next
     */
    public static void regular(GreptimeDB db) {
        Result<WriteOk, Err> r = db.write(Table.from(SCHEMA).addRow("warm", 0.0, TS.getAndIncrement())).join();
        assertTrue(r.isOk(), () -> "the warm-up write failed: " + r.getErr());
    }

    /**
     * Connects the client and readies the bulk path too: Arrow's classes loaded and one DoPut stream opened, written
     * and answered, all with the default timeout.
     *
     * @param db the client a short timeout is applied to next
     */
    public static void bulk(GreptimeDB db) {
        regular(db);
        db.prepareBulk();
        try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder().createTable(false).build(),
                Context.newBuilder().build())) {
            w.tableBufferRoot(1).addRow("warm", 0.0, TS.getAndIncrement());
            w.writeNext();
            assertEquals(1, w.completed(), "the warm-up batch is stored");
        }
    }
}
