package dev.sluice.lifecycle;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import java.time.Duration;

/** Run in a JVM of its own by {@link BatchingWriterLeftOpenOnEitherPathTest}: writes rows and ends without closing. */
public final class ProgramLeavingAWriterOpen {
    private ProgramLeavingAWriterOpen() {
    }

    /**
     * Writes rows into a batching writer and ends with it (and the client) open.
     *
     * @param args endpoint; table; rows; {@code Regular} or {@code Bulk}; {@code return} to let main return or
     *     {@code exit} to call {@code System.exit(0)}
     */
    public static void main(String[] args) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(args[0], "public").build());
        TableSchema schema = TableSchema.newBuilder(args[1]).addTag("host", DataType.String)
                .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        BatchingWriter writer = db.batchingWriter(BatchingWriter.Config.newBuilder().flushInterval(Duration.ofHours(1))
                .path(BatchingWriter.Path.valueOf(args[3])).build());
        int rows = Integer.parseInt(args[2]);
        for (int i = 0; i < rows; i++) {
            writer.write(schema, "h" + i, i * 0.5, 1_700_000_000_000L + i);
        }
        System.out.println("main ends");
        if (args[4].equals("exit")) {
            System.exit(0);
        }
    }
}
