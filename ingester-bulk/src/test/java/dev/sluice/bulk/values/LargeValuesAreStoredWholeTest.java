package dev.sluice.bulk.values;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Single values of tens of MiB (text and bytes) next to small ones, in one batch, with each compression. */
class LargeValuesAreStoredWholeTest {
    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("msg", DataType.String)
                .addField("blob", DataType.Binary).addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void aTwentyMebibyteTextAndBinaryValueRoundTrip(Compression compression) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                Random random = new Random(41);
                StringBuilder text = new StringBuilder(20 << 20);
                while (text.length() < 20 << 20) {
                    text.append("line ").append(random.nextInt()).append(" é ✓ ");
                }
                byte[] blob = new byte[12 << 20];
                random.nextBytes(blob);
                List<Object[]> rows = new ArrayList<>();
                rows.add(new Object[] {"a", "small", new byte[] {1}, 1L});
                rows.add(new Object[] {"b", text.toString(), blob, 2L});
                rows.add(new Object[] {"c", null, null, 3L});
                rows.add(new Object[] {"d", "", new byte[0], 4L});
                String suffix = compression.name().toLowerCase();
                StoredBothWays.writeAndCompare(server, db, schema("large_bulk_" + suffix),
                        schema("large_regular_" + suffix), rows, Context.newBuilder().compression(compression).build());
            } finally {
                db.shutdownNow();
            }
        }
    }
}
