package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.TableSchema;
import dev.sluice.mapping.Field;
import dev.sluice.mapping.Tag;
import dev.sluice.mapping.Timestamp;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WriteObjectsTest extends DefaultTestkitTest {



    @dev.sluice.mapping.Table("cpu_metrics")
    record CpuMetric(@Tag String host, @Tag(name = "dc") String datacenter, @Field double usage,
                     @Field(type = DataType.UInt32) long cores, @Field(precision = 10, scale = 2) BigDecimal cost,
                     @Field Map<String, Object> labels, @Timestamp Instant ts, String notMapped) {
    }

    @dev.sluice.mapping.Table
    static final class DiskEvent {
        @Tag
        private final String device;
        @Field
        private final long bytes;
        @Timestamp(type = DataType.TimestampSecond)
        private final long at;
        private static final int IGNORED = 1;

        DiskEvent(String device, long bytes, long at) {
            this.device = device;
            this.bytes = bytes;
            this.at = at;
        }
    }

    @Test
    void recordsAndClassesBecomeTablesInDeclarationOrder() {
        Instant t0 = Instant.parse("2024-01-01T00:00:00Z");
        Result<WriteOk, Err> r = db.writeObjects(List.of(
                new CpuMetric("h1", "eu", 0.5, 8, new BigDecimal("1.25"), Map.of("k", "v"), t0, "x"),
                new DiskEvent("sda", 1_000, 1_700_000_000L),
                new CpuMetric("h2", "us", 0.7, 16, new BigDecimal("2.50"), Map.of(), t0.plusSeconds(1), "y"))).join();
        assertTrue(r.isOk(), r::toString);
        assertEquals(3, r.getOk().affectedRows());
        assertEquals(List.of("host", "dc", "usage", "cores", "cost", "labels", "ts"),
                server.schema("cpu_metrics").columns().stream().map(TableSchema.Column::name).toList());
        assertEquals(DataType.UInt32, server.schema("cpu_metrics").column(3).dataType());
        assertEquals(new DecimalType(10, 2), server.schema("cpu_metrics").column(4).decimalType());
        assertEquals(DataType.Json, server.schema("cpu_metrics").column(5).dataType());
        assertEquals(t0.toEpochMilli(), server.rows("cpu_metrics").get(0).get("ts"));
        assertEquals(new BigDecimal("2.50"), server.rows("cpu_metrics").get(1).get("cost"));
        assertEquals(Map.of("device", "sda", "bytes", 1_000L, "at", 1_700_000_000L), server.rows("disk_event").get(0));
    }

    @dev.sluice.mapping.Table
    record NoTimestamp(@Tag String host, @Field double v) {
    }

    record NotATable(@Tag String host) {
    }

    @dev.sluice.mapping.Table
    record Unknown(@Field Thread t, @Timestamp Instant ts) {
    }

    @dev.sluice.mapping.Table
    record BadTime(@Timestamp String ts) {
    }

    @Test
    void misannotatedClassesFailAtFirstUseNamingClassAndComponent() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> db.writeObjects(List.of(new NoTimestamp("h", 1.0))));
        assertTrue(e.getMessage().contains("NoTimestamp") && e.getMessage().contains("timestamp"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> db.writeObjects(List.of(new NotATable("h"))));
        assertTrue(e.getMessage().contains("NotATable"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> db.writeObjects(List.of(new Unknown(null, Instant.now()))));
        assertTrue(e.getMessage().contains("Unknown.t") && e.getMessage().contains("java.lang.Thread"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> db.writeObjects(List.of(new BadTime("now"))));
        assertTrue(e.getMessage().contains("BadTime.ts"), e.getMessage());
    }
}
