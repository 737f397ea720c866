package dev.sluice.example;

import dev.sluice.data.DataType;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;

/** Sends many tables over one {@code HandleRequests} stream and reads the server's single answer. */
public final class StreamWriteExample {
    private StreamWriteExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--endpoint host:port]}
     * @return the rows the server acknowledged
     */
    public static long run(String[] args) {
        try (ExampleTarget target = ExampleTarget.from(args)) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(target.endpoints(), "public").build());
            try {
                TableSchema schema = TableSchema.newBuilder("example_requests")
                        .addTag("service", DataType.String).addField("latency_ms", DataType.Float64)
                        .addTimestamp("ts", DataType.TimestampMillisecond).build();
                StreamWriter<Table, WriteOk> stream = db.streamWriter();
                for (int batch = 0; batch < 10; batch++) {
                    Table t = Table.from(schema, 100);
                    for (int i = 0; i < 100; i++) {
                        t.addRow("svc-" + (i % 4), 5.0 + i % 17, 1_700_000_000_000L + batch * 100L + i);
                    }
                    stream.write(t); // returns at once; nothing is confirmed until completed()
                }
                WriteOk ok = stream.completed().join();
                System.out.println("stream: " + ok.affectedRows() + " rows acknowledged in one answer");
                return ok.affectedRows();
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
