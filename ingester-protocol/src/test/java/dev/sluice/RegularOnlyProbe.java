package dev.sluice;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;

/** Run in a child JVM by {@link NoArrowForRegularWritesTest}: one regular write to the endpoint in args[0]. */
public final class RegularOnlyProbe {
    private RegularOnlyProbe() {
    }

    /**
     * Entry point.
     *
     * @param args the testkit endpoint
     */
    public static void main(String[] args) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(args[0], "public").build());
        TableSchema s = TableSchema.newBuilder("probe").addTag("k", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Result<WriteOk, Err> r = db.write(Table.from(s).addRow("a", 1L)).join();
        db.shutdownGracefully();
        System.out.println(r.isOk() ? "write ok" : "write failed: " + r.getErr());
    }
}
