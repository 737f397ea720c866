package dev.sluice.example;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import java.time.Instant;

/** Writes two rows to GreptimeDB and says whether they were stored. */
public class Quickstart {
    /** @param args the gRPC endpoint, {@code host:port} (default 127.0.0.1:4001) */
    public static void main(String[] args) {
        String endpoint = args.length > 0 ? args[0] : "127.0.0.1:4001"; // a GreptimeDB frontend's gRPC port
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(endpoint, "public").build());
        try {
            TableSchema schema = TableSchema.newBuilder("cpu")
                    .addTag("host", DataType.String)
                    .addField("usage", DataType.Float64)
                    .addTimestamp("ts", DataType.TimestampMillisecond)
                    .build();
            Instant now = Instant.now();
            Table table = Table.from(schema)        // each row is checked here: bad values throw at once
                    .addRow("web-1", 0.42, now)
                    .addRow("web-2", 0.17, now);
            Result<WriteOk, Err> result = db.write(table).join(); // server and network failures arrive here
            if (result.isOk()) {
                System.out.println("stored " + result.getOk().affectedRows() + " rows");
            } else {
                System.err.println("not stored: " + result.getErr()); // code, gRPC status, message, retryable
            }
        } finally {
            db.shutdownGracefully(); // waits for writes in flight, then closes the connections
        }
    }
}
