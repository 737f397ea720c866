package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.data.DataType;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.data.InvalidDataException;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Writes at the limits of size and range: a regular write over the message limit is split and fully stored even
 * when parts fail and are resent, a part failing for good reports exactly what was stored, and nanosecond timestamps
 * take their whole range and refuse one nanosecond beyond.
 */
class OversizedWritesAndTimestampRangeTest extends DeliveryUnderFaultsKit {
    @Test
    void nanosecondTimesTakeTheWholeRangeInTheClientAndWholeDaysOnTheServer() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build());
            TableSchema s = TableSchema.newBuilder("ts_nanos").addTag("k", DataType.String)
                    .addTimestamp("ts", DataType.TimestampNanosecond).build();
            Instant min = Instant.ofEpochSecond(0, Long.MIN_VALUE);
            Instant max = Instant.ofEpochSecond(0, Long.MAX_VALUE);
            Table t = Table.from(s, 4);
            t.addRow("min", min);
            t.addRow("min+0.5s", min.plusMillis(500)); // inside the window the issue found refused
            t.addRow("max", max);
            t.addRow("zero", Instant.EPOCH);
            // The client takes the whole range; GreptimeDB refuses the ends, whose one-day memtable partitions do
            // not fit in nanoseconds (1004), and stores nothing of the write.
            Result<WriteOk, Err> r = db.write(t).get(BOUND_S, TimeUnit.SECONDS);
            assertFalse(r.isOk(), String.valueOf(r));
            assertEquals(StatusCode.InvalidArguments, r.getErr().statusCode(), String.valueOf(r));
            assertEquals(0, server.rowCount("ts_nanos"));
            Table inside = Table.from(s, 2);
            inside.addRow("first day", Instant.ofEpochSecond(0, -9_223_286_400_000_000_000L));
            inside.addRow("last day", Instant.ofEpochSecond(0, 9_223_286_399_999_999_999L));
            Result<WriteOk, Err> stored = db.write(inside).get(BOUND_S, TimeUnit.SECONDS);
            assertTrue(stored.isOk(), String.valueOf(stored));
            assertEquals(2, server.rowCount("ts_nanos"));
            Table bad = Table.from(s, 1);
            assertThrows(InvalidDataException.class, () -> bad.addRow("below", min.minusNanos(1)));
            assertThrows(InvalidDataException.class, () -> bad.addRow("above", max.plusNanos(1)));
            for (Map<String, Object> row : server.rows("ts_nanos")) {
                System.out.println("[adversarial] ts_nanos stored " + row);
            }
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void oversizedRegularWriteIsSplitAndFullyStoredEvenWhenEveryOtherPartFails() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).maxMessageSize(256 * 1024)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(30)).build()).build());
            TableSchema s1 = schema("split_a");
            TableSchema s2 = schema("split_b");
            server.faults().failEvery(2, StatusCode.RateLimited, "rate limited");
            Table a = table(s1, 0, 5_000, 300); // ~1.6 MB
            Table b = table(s2, 0, 50, 0);      // a small second table in the same write
            Result<WriteOk, Err> r = db.write(a, b).get(60, TimeUnit.SECONDS);
            server.faults().reset();
            System.out.printf("[adversarial] split: result=%s stored a=%d b=%d requests=%d%n", r,
                    server.rowCount("split_a"), server.rowCount("split_b"), server.requestCount());
            assertTrue(r.isOk(), String.valueOf(r));
            assertEquals(5_050, r.getOk().affectedRows());
            assertEquals(5_000, server.rowCount("split_a"));
            assertEquals(50, server.rowCount("split_b"));
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void oversizedRegularWriteWhosePartFailsForGoodReportsExactlyWhatWasStored() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).maxMessageSize(256 * 1024)
                    .retryPolicy(RetryPolicy.none()).build());
            TableSchema s = schema("split_fail");
            db.write(table(s, -1, 1, 0)).get(BOUND_S, TimeUnit.SECONDS); // create the table first
            server.clear();
            server.faults().failEvery(3, StatusCode.RateLimited, "rate limited");
            Result<WriteOk, Err> r = db.write(table(s, 0, 5_000, 300)).get(60, TimeUnit.SECONDS);
            server.faults().reset();
            long stored = server.rowCount("split_fail"); // clear() forgot the creating row
            System.out.printf("[adversarial] split-fail: result=%s stored=%d%n", r, stored);
            assertFalse(r.isOk(), "some part failed for good under RetryPolicy.none()");
            assertTrue(stored > 0 && stored < 5_000, "some parts stored: " + stored);
            assertTrue(r.getErr().message().contains(Long.toString(stored)),
                    "the Err names what the other parts stored (" + stored + "): " + r.getErr());
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }
}
