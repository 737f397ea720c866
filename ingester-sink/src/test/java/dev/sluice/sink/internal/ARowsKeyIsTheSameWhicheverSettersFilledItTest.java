package dev.sluice.sink.internal;

import static dev.sluice.sink.CpuRows.CPU;
import static dev.sluice.sink.CpuRows.CPU_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A write's row and a delete's key address the same GreptimeDB row when their tags and time index are equal as
 * stored, whichever setters filled them and whatever fields the write carries.
 */
class ARowsKeyIsTheSameWhicheverSettersFilledItTest {
    final RowKeys keys = new RowKeys();

    @Test
    void aFullRowAndAKeyFilledByOtherSettersAreOneRow() {
        byte[] host = "h1".getBytes(StandardCharsets.UTF_8);
        RowKeys.Key written = keys.of(CPU, r -> r.setString(0, "h1").setDouble(1, 0.5).setLong(2, 1_000L));
        RowKeys.Key deleted = keys.of(CPU_KEY, r -> r.setUtf8(0, host, 0, host.length)
                .setTimestamp(1, Instant.ofEpochMilli(1_000L)));

        assertEquals(written, deleted);
    }

    @Test
    void anotherTagOrTimeIsAnotherRow() {
        RowKeys.Key row = keys.of(CPU_KEY, r -> r.setString(0, "h1").setLong(1, 1_000L));

        assertNotEquals(row, keys.of(CPU_KEY, r -> r.setString(0, "h2").setLong(1, 1_000L)));
        assertNotEquals(row, keys.of(CPU_KEY, r -> r.setString(0, "h1").setLong(1, 1_001L)));
        assertEquals(row, keys.of(CPU, r -> r.setString(0, "h1").setDouble(1, 9.0).setLong(2, 1_000L)));
    }
}
