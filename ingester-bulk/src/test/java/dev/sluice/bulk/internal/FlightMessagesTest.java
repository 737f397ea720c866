package dev.sluice.bulk.internal;

import dev.sluice.SharesJvm;
import dev.sluice.internal.bulk.spi.BulkAnswer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import org.apache.arrow.flight.impl.Flight;
import org.junit.jupiter.api.Test;

@SharesJvm
class FlightMessagesTest {

    private static Flight.PutResult result(String json) {
        return Flight.PutResult.newBuilder().setAppMetadata(ByteString.copyFromUtf8(json)).build();
    }

    @Test
    void anAnswerIsReadWhateverTheFieldOrderSpacingAndExtraFields() {
        assertEquals(new BulkAnswer(7, 1000), FlightMessages.answer(result("{\"request_id\":7,\"affected_rows\":1000}")));
        assertEquals(new BulkAnswer(9, 3), FlightMessages.answer(
                result(" { \"affected_rows\" : 3 , \"note\": {\"a\": [1, \"request_id\"]}, \"request_id\" : 9 } ")));
    }

    @Test
    void theGreetingWithoutAnIdReadsAsZero() {
        assertEquals(new BulkAnswer(0, 0), FlightMessages.answer(result("{}")));
    }

    @Test
    void metadataThatIsNotAJsonObjectIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FlightMessages.answer(result("request_id=3")));
        assertEquals("unreadable DoPut answer metadata: request_id=3", e.getMessage());
    }
}
