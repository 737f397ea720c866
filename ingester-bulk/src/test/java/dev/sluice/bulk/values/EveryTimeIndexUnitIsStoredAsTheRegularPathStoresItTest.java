package dev.sluice.bulk.values;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A time index of each unit (seconds to nanoseconds), given as numbers and as {@link Instant}s, with timestamp and
 * time fields beside it: stored by a bulk writer as the regular path stores it.
 */
class EveryTimeIndexUnitIsStoredAsTheRegularPathStoresItTest {
    static TableSchema schema(String table, DataType timeIndex) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String)
                .addField("seen_ns", DataType.TimestampNanosecond).addField("seen_s", DataType.TimestampSecond)
                .addField("at", DataType.TimeMicrosecond).addTimestamp("ts", timeIndex).build();
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"TimestampSecond", "TimestampMillisecond", "TimestampMicrosecond",
        "TimestampNanosecond"})
    void timeIndexOfThisUnit(DataType unit) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                List<Object[]> rows = new ArrayList<>();
                Instant base = Instant.parse("2024-02-29T23:59:59.123456789Z");
                for (int i = 0; i < 20; i++) {
                    Object ts = i % 2 == 0 ? base.plusSeconds(i * 3_601L).plusNanos(i * 999L) : (Object) (1_700_000_000L + i);
                    rows.add(new Object[] {"h" + i % 3, i % 3 == 0 ? null : base.minusNanos(i * 7L),
                        i % 4 == 0 ? null : (Object) (1_600_000_000L + i), i % 5 == 0 ? null : (Object) (i * 1_000_001L),
                        ts});
                }
                String u = unit.name().toLowerCase();
                StoredBothWays.writeAndCompare(server, db, schema("ti_bulk_" + u, unit), schema("ti_regular_" + u, unit),
                        rows, Context.newBuilder().build());
            } finally {
                db.shutdownNow();
            }
        }
    }
}
