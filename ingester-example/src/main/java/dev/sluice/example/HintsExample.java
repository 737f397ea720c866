package dev.sluice.example;

import dev.sluice.write.Context;
import dev.sluice.data.DataType;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.write.RetryPolicy;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOp;
import java.util.List;

/**
 * Creates a table through a write with hints: a 7-day TTL and append mode (duplicates kept). Append-mode writes
 * turn off retries of timed-out requests, which could duplicate rows.
 */
public final class HintsExample {
    private HintsExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--endpoint host:port]}
     * @return rows stored on the embedded testkit (-1 against a real server)
     */
    public static long run(String[] args) {
        try (ExampleTarget target = ExampleTarget.from(args)) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(target.endpoints(), "public").build());
            try {
                TableSchema audit = TableSchema.newBuilder("example_audit").addTag("user", DataType.String)
                        .addField("action", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
                Context ctx = Context.newBuilder().hint("ttl", "7d").hint("append_mode", "true")
                        .retryPolicy(RetryPolicy.newBuilder().build()).build();
                Table t = Table.from(audit).addRow("ann", "login", 1L).addRow("ann", "login", 1L);
                RegularWriteExample.report("append-mode insert", db.write(List.of(t), WriteOp.Insert, ctx).join());
                if (!target.embedded().isEmpty()) {
                    System.out.println("table options: " + target.embedded().get(0).tableOptions("public", "example_audit"));
                }
                return target.rowCount("example_audit");
            } finally {
                db.shutdownGracefully();
            }
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
