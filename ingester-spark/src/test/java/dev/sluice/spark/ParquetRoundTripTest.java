package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A Parquet directory written by Spark, read back and written to GreptimeDB: every cell stored as read. */
class ParquetRoundTripTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @Test
    void everyCellOfAParquetDirectoryIsStoredAsSparkReadsIt(GreptimeTestServer server, @TempDir Path dir) {
        String parquet = dir.resolve("readings").toString();
        LocalSpark.session().range(0, 5_000, 1, 3).selectExpr("id", "concat('sensor-', id % 17) AS sensor",
                "IF(id % 11 = 0, NULL, CAST(id AS DOUBLE) / 7) AS celsius", "CAST(id % 3 AS SMALLINT) AS level",
                "CAST(id AS DECIMAL(12, 3)) / 8 AS amount", "id % 2 = 0 AS ok", "unhex(hex(id)) AS raw",
                "date_add(DATE'2020-01-01', CAST(id % 400 AS INT)) AS day",
                "timestamp_micros(1704067200000000 + id * 1001) AS ts")
                .write().parquet(parquet);
        Dataset<Row> read = LocalSpark.session().read().parquet(parquet);
        LocalSpark.write(read, server, "readings", "append", "tags", "sensor");

        List<Row> expected = read.collectAsList();
        Map<Object, Map<String, Object>> stored = LocalSpark.byKey(server.rows("readings"), "id");
        assertEquals(expected.size(), stored.size());
        for (Row r : expected) {
            Map<String, Object> s = stored.get(r.getLong(0));
            String at = "id " + r.getLong(0);
            assertEquals(r.getString(1), s.get("sensor"), at);
            assertEquals(r.isNullAt(2) ? null : r.getDouble(2), s.get("celsius"), at);
            assertEquals((long) r.getShort(3), s.get("level"), at);
            assertEquals(0, r.getDecimal(4).compareTo((java.math.BigDecimal) s.get("amount")), at);
            assertEquals(r.getBoolean(5), s.get("ok"), at);
            assertArrayEquals((byte[]) r.get(6), (byte[]) s.get("raw"), at);
            assertEquals(r.<LocalDate>getAs(7), s.get("day"), at);
            Instant ts = r.<Instant>getAs(8);
            assertEquals(ChronoUnit.MICROS.between(Instant.EPOCH, ts), s.get("ts"), at);
        }
    }
}
