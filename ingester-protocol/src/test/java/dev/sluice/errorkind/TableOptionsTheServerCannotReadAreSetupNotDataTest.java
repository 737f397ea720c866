package dev.sluice.errorkind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Table options and hints the server cannot read ({@code append_mode=yes}, an unknown {@code merge_mode}, both modes
 * at once, {@code auto_create_table=maybe}) are settings no row can fix: the server's answer is
 * {@link ErrorKind#Setup}, so an integration stops instead of setting every row aside as bad data.
 */
class TableOptionsTheServerCannotReadAreSetupNotDataTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    /** The write's error, or null when the server stored it. */
    private static Err answer(GreptimeTestServer server, Map<String, String> hints) {
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .retryPolicy(RetryPolicy.none()).build())) {
            Context.Builder ctx = Context.newBuilder();
            hints.forEach(ctx::hint);
            Result<WriteOk, Err> r = db.write(List.of(Table.from(CPU).addRow("a", 1.0, 1_700_000_000_000L)),
                    WriteOp.Insert, ctx.build()).join();
            return r.isOk() ? null : r.getErr();
        }
    }

    @Test
    void tableOptionsTheServerCannotReadAreSetupNotData() {
        List<String> wrong = new ArrayList<>();
        for (Map<String, String> hints : List.of(Map.of("ttl", "forever"), Map.of("append_mode", "yes"),
                Map.of("merge_mode", "newest"), Map.of("append_mode", "true", "merge_mode", "last_row"),
                Map.of("auto_create_table", "maybe"))) {
            try (GreptimeTestServer server = GreptimeTestServer.start()) {
                Err e = answer(server, hints);
                if (e == null) {
                    continue; // the server takes this option; nothing to classify
                }
                if (e.kind() != ErrorKind.Setup) {
                    wrong.add(hints + " -> " + e.kind() + " (" + e.code() + " " + e.message() + ")");
                }
                assertEquals(0, server.rowCount("cpu"));
            }
        }
        assertTrue(wrong.isEmpty(), "settings refused as if a row were bad: " + wrong);
    }
}
