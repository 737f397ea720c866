package dev.sluice.lifecycle;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import java.time.Duration;

/**
 * A program as a new user writes it: rows go to a batching writer, and {@code main} returns. Run in its own JVM by
 * {@link BatchingWriterLeftOpenAtExitTest}.
 */
public final class ProgramEndingWithOpenBatchingWriter {
    private ProgramEndingWithOpenBatchingWriter() {
    }

    /**
     * Writes rows and ends.
     *
     * @param args the endpoint; the table; how many rows; {@code open} to end with the writer and client left
     *     open, {@code closed} to close both first
     */
    public static void main(String[] args) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(args[0], "public").build());
        TableSchema schema = TableSchema.newBuilder(args[1]).addTag("host", DataType.String)
                .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        // A flush interval far longer than the program: only a flush at exit can send these rows.
        BatchingWriter writer = db.batchingWriter(BatchingWriter.Config.newBuilder().flushInterval(Duration.ofHours(1)).build());
        int rows = Integer.parseInt(args[2]);
        for (int i = 0; i < rows; i++) {
            writer.write(schema, "h" + i, i * 0.5, 1_700_000_000_000L + i);
        }
        if (args[3].equals("closed")) {
            writer.close();
            db.shutdownGracefully();
        }
        System.out.println("main returns");
    }
}
