package dev.sluice;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import java.time.Duration;

/**
 * Run in a child JVM by {@link ProtocolAloneTest} with only what a user of {@code ingester-protocol} gets on the
 * classpath: regular, stream and batching writes to the endpoint in args[0], then a request for bulk.
 */
public final class ProtocolOnlyProbe {
    private ProtocolOnlyProbe() {
    }

    /**
     * Entry point.
     *
     * @param args the testkit endpoint
     */
    public static void main(String[] args) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(args[0], "public").build());
        TableSchema s = TableSchema.newBuilder("alone").addTag("k", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Result<WriteOk, Err> r = db.write(Table.from(s).addRow("a", 1L)).join();
        System.out.println(r.isOk() ? "regular ok" : "regular failed: " + r.getErr());
        try (StreamWriter<Table, WriteOk> stream = db.streamWriter()) {
            System.out.println("stream ok " + stream.write(Table.from(s).addRow("b", 2L)).completed().join().affectedRows());
        }
        try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build())) {
            w.write(s, "c", 3L).join();
            System.out.println("batching ok");
        }
        // db.bulkStreamWriter takes a BulkWrite.Config, so without ingester-bulk it cannot even be compiled against;
        // the batching writer's bulk path is the way to ask for bulk at run time.
        try {
            db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk).build());
            System.out.println("bulk batching opened?!");
        } catch (IllegalStateException e) {
            System.out.println("bulk batching refused: " + e.getMessage());
        }
        System.out.println("bulk bytes " + db.stats().bulkAllocatedBytes());
        System.out.println("shutdown " + db.shutdownGracefully(Duration.ofSeconds(10)));
    }
}
