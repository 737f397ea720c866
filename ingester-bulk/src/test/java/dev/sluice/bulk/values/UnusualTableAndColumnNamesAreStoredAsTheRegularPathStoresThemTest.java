package dev.sluice.bulk.values;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Table names with capitals, dashes, dots, {@code @} and {@code #}, and column names with capitals, spaces, quotes,
 * dots and non-ASCII letters: a bulk writer creates the table and stores the rows as the regular path does.
 */
class UnusualTableAndColumnNamesAreStoredAsTheRegularPathStoresThemTest {
    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("Host Name", DataType.String).addTag("région", DataType.String)
                .addField("it's \"quoted\"", DataType.String).addField("a.b", DataType.Float64)
                .addField("CamelCase", DataType.Int64).addField("select", DataType.Int32)
                .addTimestamp("Time-Index", DataType.TimestampMillisecond).build();
    }

    @Test
    void namesThatNeedQuotingRoundTrip() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                List<Object[]> rows = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    rows.add(new Object[] {"h" + i % 3, i % 2 == 0 ? "zürich" : null, "v'" + i, i * 0.25,
                        i % 5 == 0 ? null : (long) i * 1_000_000_007L, i, 1_700_000_000_000L + i});
                }
                StoredBothWays.writeAndCompare(server, db, schema("Web-Logs.v2@eu#1"), schema("Regular-Logs.v2@eu#1"),
                        rows, Context.newBuilder().build());
            } finally {
                db.shutdownNow();
            }
        }
    }
}
