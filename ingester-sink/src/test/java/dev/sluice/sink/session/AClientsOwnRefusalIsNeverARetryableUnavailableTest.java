package dev.sluice.sink.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.sluice.data.InvalidDataException;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.StatusCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A write the client refuses by its own rules (a JSON column on the bulk path, a value that does not fit) is not a
 * server that did not answer: its error is not retryable, not UNAVAILABLE, and names the table.
 */
class AClientsOwnRefusalIsNeverARetryableUnavailableTest {
    @Test
    void aRefusalTheClientRaisedIsReadAsNotRetryableNamingTheTable() {
        Err rule = SinkClients.errOf(new IllegalArgumentException("table 'docs', column 'attrs': Json columns cannot"
                + " be bulk written"), "docs");
        assertFalse(rule.retryable(), rule.toString());
        assertNotEquals(StatusCode.Grpc.UNAVAILABLE, rule.grpcCode(), rule.toString());
        assertEquals(ErrorKind.Setup, rule.kind(), rule.toString());
        assertEquals(List.of("docs"), rule.tables());

        Err value = SinkClients.errOf(new InvalidDataException("docs", "attrs", 1, "not JSON"), "docs");
        assertFalse(value.retryable(), value.toString());
        assertEquals(ErrorKind.Data, value.kind(), value.toString());
    }
}
