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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The server's own answers (not injected faults) to settings no row can fix are {@link ErrorKind#Setup}, and to a
 * value no setting can fix {@link ErrorKind#Data} naming the column: a missing database and a table the
 * {@code auto_create_table=false} hint forbids to create, against a value of the wrong type.
 */
class TheServersOwnRefusalsAreClassifiedByWhatTheyAreAboutTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private static Err refused(GreptimeTestServer server, String database, TableSchema schema, Object value,
                               Map<String, String> hints) {
        Err e = answer(server, database, schema, value, hints);
        assertTrue(e != null, "refused: " + hints);
        return e;
    }

    /** The write's error, or null when the server stored it. */
    private static Err answer(GreptimeTestServer server, String database, TableSchema schema, Object value,
                              Map<String, String> hints) {
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), database)
                .retryPolicy(RetryPolicy.none()).build())) {
            Context.Builder ctx = Context.newBuilder();
            hints.forEach(ctx::hint);
            Result<WriteOk, Err> r = db.write(List.of(Table.from(schema).addRow("a", value, 1_700_000_000_000L)),
                    WriteOp.Insert, ctx.build()).join();
            return r.isOk() ? null : r.getErr();
        }
    }

    @Test
    void aMissingDatabaseOrAForbiddenTableCreationIsSetup() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            Err noDb = refused(server, "nowhere", CPU, 1.0, Map.of());
            assertEquals(ErrorKind.Setup, noDb.kind(), noDb.toString());
            Err noCreate = refused(server, "public", CPU, 1.0, Map.of("auto_create_table", "false"));
            assertEquals(ErrorKind.Setup, noCreate.kind(), noCreate.toString());
            assertEquals(0, server.rowCount("cpu"));
        }
    }

    @Test
    void aValueOfAnotherTypeThanTheTablesIsDataNamingItsColumn() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
                assertTrue(db.write(Table.from(CPU).addRow("a", 1.0, 1L)).join().isOk());
            }
            TableSchema asInt = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
                    .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
            Err e = refused(server, "public", asInt, 5L, Map.of());
            assertEquals(ErrorKind.Data, e.kind(), e.toString());
            assertEquals("v", e.column().orElse(null), e.toString());
            assertEquals(1, server.rowCount("cpu"));
        }
    }
}
