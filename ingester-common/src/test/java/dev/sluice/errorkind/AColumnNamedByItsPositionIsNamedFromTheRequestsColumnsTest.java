package dev.sluice.errorkind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.Err;
import dev.sluice.write.StatusCode.Grpc;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A refusal naming its column only by position ("at column index 1", as GreptimeDB answers a bulk batch column typed
 * otherwise than the table) is named from the refused request's columns; one that names a column already, names no
 * position, or a position the request does not have, is left as it is.
 */
class AColumnNamedByItsPositionIsNamedFromTheRequestsColumnsTest {
    private static final List<String> COLUMNS = List.of("host", "v", "ts");

    private static Err err(String message) {
        return new Err(1002, Grpc.INTERNAL, message, false, List.of("t"), null);
    }

    @Test
    void thePositionIsNamed() {
        Err named = err("Failed to create RecordBatch from vectors: Invalid argument error: column types must match"
                + " schema types, expected Float64 but found Utf8 at column index 1").namingColumnAtIndex(COLUMNS);
        assertEquals(Optional.of("v"), named.column());
        assertTrue(named.message().startsWith("Failed to create RecordBatch from vectors"), named.message());
        assertEquals(Optional.of("host"), err("expected Utf8 but found Int64 at column index 0")
                .namingColumnAtIndex(COLUMNS).column());
    }

    @Test
    void otherMessagesAreLeftAsTheyAre() {
        Err outside = err("expected Utf8 but found Int64 at column index 3");
        assertSame(outside, outside.namingColumnAtIndex(COLUMNS));
        Err named = err("Column v of table t has type Int64, given String");
        assertSame(named, named.namingColumnAtIndex(COLUMNS));
        Err none = err("Failed to find schema, schema info: nowhere");
        assertSame(none, none.namingColumnAtIndex(COLUMNS));
        Err nothing = err(null);
        assertSame(nothing, nothing.namingColumnAtIndex(COLUMNS));
    }
}
