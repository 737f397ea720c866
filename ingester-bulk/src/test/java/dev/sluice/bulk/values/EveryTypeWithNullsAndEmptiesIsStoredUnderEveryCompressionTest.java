package dev.sluice.bulk.values;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every type the bulk path carries, in batches made only of NULL fields, of empty text and bytes, and of extreme
 * values, under each compression: stored by a bulk writer cell for cell as the regular path stores them (buffers of
 * length zero and all-zero validity included).
 */
class EveryTypeWithNullsAndEmptiesIsStoredUnderEveryCompressionTest {
    static final List<DataType> TYPES = new ArrayList<>();

    static {
        for (DataType t : DataType.values()) {
            if (t != DataType.Json && t != DataType.Vector) {
                TYPES.add(t);
            }
        }
    }

    static TableSchema schema(String table) {
        return everyType(table).addTimestamp("ts", DataType.TimestampNanosecond).build();
    }

    /** A tag, then one field {@code c_<type>} of every type in {@link #TYPES}; no time index yet. */
    static TableSchema.Builder everyType(String table) {
        TableSchema.Builder b = TableSchema.newBuilder(table).addTag("tag", DataType.String);
        for (DataType t : TYPES) {
            if (t == DataType.Decimal128) {
                b.addColumn("c_" + t, SemanticType.Field, t, new DecimalType(20, 3));
            } else {
                b.addField("c_" + t, t);
            }
        }
        return b;
    }

    static Object small(DataType t, int i) {
        return switch (t) {
            case Bool -> i % 2 == 0;
            case Int8, Int16, Int32, UInt8, UInt16 -> i;
            case Int64, UInt32 -> (long) i;
            case UInt64 -> BigInteger.valueOf(i);
            case Float32 -> i == 1 ? -0.0f : (float) i;
            case Float64 -> i == 1 ? Double.MIN_VALUE : -i * 1e300;
            case Binary -> new byte[0];
            case String -> "";
            case Date -> LocalDate.of(1970, 1, 1).plusDays(-i);
            case TimestampSecond, TimestampMillisecond, TimestampMicrosecond, TimestampNanosecond ->
                Instant.EPOCH.plusNanos(i);
            case TimeSecond, TimeMillisecond, TimeMicrosecond, TimeNanosecond -> LocalTime.ofNanoOfDay(i);
            case Decimal128 -> new BigDecimal("-99999999999999999.999").add(BigDecimal.valueOf(i));
            default -> throw new IllegalArgumentException(t.toString());
        };
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void nullsEmptiesAndExtremesRoundTrip(Compression compression) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                String c = compression.name().toLowerCase();
                List<Object[]> allNull = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    Object[] row = new Object[TYPES.size() + 2];
                    row[0] = i % 2 == 0 ? null : "t" + i;
                    row[row.length - 1] = 1_700_000_000_000_000_000L + i;
                    allNull.add(row);
                }
                StoredBothWays.writeAndCompare(server, db, schema("nulls_bulk_" + c), schema("nulls_regular_" + c),
                        allNull, Context.newBuilder().compression(compression).build());
                List<Object[]> empties = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    Object[] row = new Object[TYPES.size() + 2];
                    row[0] = "";
                    for (int k = 0; k < TYPES.size(); k++) {
                        row[k + 1] = (i + k) % 3 == 0 ? null : small(TYPES.get(k), i % 5);
                    }
                    row[row.length - 1] = (long) i;
                    empties.add(row);
                }
                StoredBothWays.writeAndCompare(server, db, schema("empties_bulk_" + c), schema("empties_regular_" + c),
                        empties, Context.newBuilder().compression(compression).build());
            } finally {
                db.shutdownNow();
            }
        }
    }
}
