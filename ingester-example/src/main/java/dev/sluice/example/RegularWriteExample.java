package dev.sluice.example;

import dev.sluice.write.Context;
import dev.sluice.data.DataType;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.write.Result;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.time.Instant;
import java.util.List;

/**
 * Inserts a few rows, overwrites one, and deletes one, over request-response gRPC.
 * Run with {@code --endpoint host:port} for a real GreptimeDB; without it, an embedded testkit is started.
 */
public final class RegularWriteExample {
    private RegularWriteExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--endpoint host:port]}
     * @return rows in the table at the end on the embedded testkit, -1 against a real server
     */
    public static long run(String[] args) {
        try (ExampleTarget target = ExampleTarget.from(args)) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(target.endpoints(), "public").build());
            try {
                TableSchema schema = TableSchema.newBuilder("example_cpu")
                        .addTag("host", DataType.String)
                        .addField("usage", DataType.Float64)
                        .addTimestamp("ts", DataType.TimestampMillisecond)
                        .build();
                Instant now = Instant.parse("2024-06-01T12:00:00Z");
                Table rows = Table.from(schema)
                        .addRow("web-1", 0.42, now)
                        .addRow("web-2", 0.17, now)
                        .addRow("web-1", 0.55, now.plusSeconds(10));
                report("insert", db.write(rows).join());

                // Same tags and time index: the later write wins (the table is not in append mode).
                report("overwrite", db.write(Table.from(schema).addRow("web-2", 0.99, now)).join());

                // Deletes address rows by tags and time index; field values are ignored.
                Table gone = Table.from(schema).addRow("web-1", null, now.plusSeconds(10));
                report("delete", db.write(List.of(gone), WriteOp.Delete, Context.newBuilder().build()).join());
                return target.rowCount("example_cpu");
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    static void report(String what, Result<WriteOk, Err> r) {
        if (r.isOk()) {
            System.out.println(what + ": " + r.getOk().affectedRows() + " rows");
        } else {
            Err e = r.getErr();
            System.out.println(what + " failed: code " + e.code() + " (" + e.grpcCode() + "), retryable=" + e.retryable()
                    + ": " + e.message());
        }
    }

    /**
     * Entry point.
     *
     * @param args {@code [--endpoint host:port]}
     */
    public static void main(String[] args) {
        run(args);
    }
}
