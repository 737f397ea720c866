package dev.sluice.errorkind;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.write.Err;
import dev.sluice.write.StatusCode.Grpc;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The column a server's refusal names is read by one parser, whatever wording GreptimeDB uses. */
class RefusedColumnIsReadFromTheMessageTest {
    private static Optional<String> column(String message) {
        return new Err(1004, Grpc.INVALID_ARGUMENT, message, false, List.of("t"), null).column();
    }

    @Test
    void theNamedColumnIsFoundInEachWording() {
        assertEquals(Optional.of("f0"), column("Invalid request to region 1(1024, 0), reason: column f0 expect type"
                + " Float64(Float64Type), given: INT64(4)"));
        assertEquals(Optional.of("v"), column("Column v of table t has type Int64, given String"));
        assertEquals(Optional.of("__sequence"), column("Column name __sequence is reserved, table t"));
        assertEquals(Optional.of("c1"), column("Invalid request to region 1(1024, 0), reason: unknown columns:"
                + " [\"c1\", \"c2\"]"));
        assertEquals(Optional.of("ts"), column("Invalid column option, column name: ts, error: time index column"
                + " can't be null"));
        assertEquals(Optional.of("host"), column("column `host` not found"));
        assertEquals(Optional.of("ts"), column("Time index column ts not found"));
    }

    @Test
    void aMessageNamingNoColumnGivesNone() {
        assertEquals(Optional.empty(), column("Failed to create RecordBatch from vectors: Invalid argument error:"
                + " column types must match schema types, expected Int64 but found Utf8 at column index 2"));
        assertEquals(Optional.empty(), column("Missing time index column in request to create table t"));
        assertEquals(Optional.empty(), column("Failed to find schema, schema info: nowhere"));
        assertEquals(Optional.empty(), column(null));
    }
}
