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

/** A wide table (1,200 columns of mixed types, most cells null in a different pattern per column) sent in bulk. */
class ManyColumnsWithNullsAreStoredCellForCellTest {
    static final int FIELDS = 1_200;
    static final DataType[] TYPES = {DataType.Float64, DataType.String, DataType.Int64, DataType.Bool, DataType.Binary,
        DataType.UInt32, DataType.Float32, DataType.Int16};

    static TableSchema schema(String table) {
        TableSchema.Builder b = TableSchema.newBuilder(table).addTag("host", DataType.String);
        for (int c = 0; c < FIELDS; c++) {
            b.addField("f" + c, TYPES[c % TYPES.length]);
        }
        return b.addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static Object value(DataType t, int row, int col) {
        if ((row + col) % (col % 7 + 2) == 0) {
            return null;
        }
        return switch (t) {
            case Float64 -> row * 1.5 + col;
            case String -> "r" + row + "c" + col;
            case Int64 -> (long) row * col - 7;
            case Bool -> (row + col) % 3 == 0;
            case Binary -> new byte[] {(byte) row, (byte) col, 0};
            case UInt32 -> (long) row * 100 + col;
            case Float32 -> (float) (row + col / 4.0);
            case Int16 -> (short) (row - col);
            default -> throw new IllegalArgumentException(t.toString());
        };
    }

    @Test
    void wideRowsRoundTrip() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                List<Object[]> rows = new ArrayList<>();
                for (int r = 0; r < 40; r++) {
                    Object[] row = new Object[FIELDS + 2];
                    row[0] = "h" + r % 4;
                    for (int c = 0; c < FIELDS; c++) {
                        row[c + 1] = value(TYPES[c % TYPES.length], r, c);
                    }
                    row[FIELDS + 1] = 1_700_000_000_000L + r;
                    rows.add(row);
                }
                StoredBothWays.writeAndCompare(server, db, schema("wide_bulk"), schema("wide_regular"), rows,
                        Context.newBuilder().build());
            } finally {
                db.shutdownNow();
            }
        }
    }
}
