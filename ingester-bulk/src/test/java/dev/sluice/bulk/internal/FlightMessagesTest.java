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
    void anAnswerReadsTheSameThroughTheCompactReaderAsThroughTheJsonParser() {
        String[] answers = {"{}", "{\"request_id\":7,\"affected_rows\":1000}", "{\"affected_rows\":3,\"request_id\":9}",
            "{\"request_id\":12}", "{\"affected_rows\":0}", "{\"request_id\":1,\"request_id\":2}",
            "{\"request_id\":999999999999999999,\"affected_rows\":1}", "{\"request_id\":9223372036854775807}",
            "{\"request_id\":0,\"affected_rows\":0}", "{\"request_id\":-4,\"affected_rows\":2}",
            "{\"request_id\":1.0}", "{\"request_id\":1,\"affected_rows\":2,\"extra\":3}", "{\"request_id\": 5}",
            "{\"request_id\":\"6\"}", "{\"request_id\":1,}", "{\"request_id\":1}}", "{\"affected_rows\":1e3}",
            "{\"request_id\":08}", "{\"request_id\":42,\"affected_rows\":88,\"elapsed_secs\":0.123}",
            "{\"elapsed_secs\":1e-5,\"request_id\":3,\"affected_rows\":4}", "{\"request_id\":3,\"elapsed_secs\":-2.5E+3}",
            "{\"request_id\":3,\"elapsed_secs\":01}", "{\"request_id\":3,\"elapsed_secs\":1.}",
            "{\"request_id\":3,\"elapsed_secs\":.5}", "{\"request_id\":3,\"elapsed_secs\":1e}",
            "{\"request_id\":3,\"elapsed_secs\":NaN}", "{\"request_id\":3,\"elapsed_secs\":0}",
            "{\"request_id\":3,\"elapsed_secs\":\"x\"}"};
        for (String a : answers) {
            Flight.PutResult r = result(a);
            BulkAnswer compact = FlightMessages.compactAnswer(r.getAppMetadata());
            BulkAnswer parsed;
            try {
                parsed = FlightMessages.answer(result(" " + a)); // a leading space: only the JSON parser reads it
            } catch (IllegalArgumentException e) {
                parsed = null;
            }
            if (compact != null) {
                assertEquals(parsed, compact, a);
            }
            BulkAnswer either;
            try {
                either = FlightMessages.answer(r);
            } catch (IllegalArgumentException e) {
                either = null;
            }
            assertEquals(parsed, either, a);
        }
        assertEquals(new BulkAnswer(7, 1000), FlightMessages.compactAnswer(
                result("{\"request_id\":7,\"affected_rows\":1000}").getAppMetadata()), "the server's answer is read compactly");
        assertEquals(new BulkAnswer(42, 88), FlightMessages.compactAnswer(
                result("{\"request_id\":42,\"affected_rows\":88,\"elapsed_secs\":0.000123}").getAppMetadata()),
                "GreptimeDB's answer, with its elapsed time, is read compactly");
    }

    /** A message's bytes as gRPC hands them over, telling {@code told} bytes available at first. */
    private static java.io.InputStream told(byte[] bytes, int told) {
        return new java.io.ByteArrayInputStream(bytes) {
            @Override
            public synchronized int available() {
                return pos == 0 ? told : super.available();
            }
        };
    }

    /** The answer, or the message of the refusal. */
    private static Object read(java.util.function.Supplier<BulkAnswer> read) {
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    @Test
    void anAnswerReadsTheSameFromItsWireBytesAsFromTheParsedPutResult() {
        String[] answers = {"{}", "", "{\"request_id\":7,\"affected_rows\":1000}",
            "{\"request_id\":42,\"affected_rows\":88,\"elapsed_secs\":0.000123}", "{\"request_id\": 5}",
            "{\"request_id\":1,\"affected_rows\":2,\"extra\":3}", "request_id=3", "{\"request_id\":08}",
            "{\"request_id\":3,\"affected_rows\":4,\"note\":\"" + "x".repeat(200) + "\"}"};
        java.util.List<Flight.PutResult> results = new java.util.ArrayList<>();
        for (String a : answers) {
            results.add(result(a));
        }
        // A field the client does not know, after and before the metadata: read by protobuf, skipped.
        com.google.protobuf.UnknownFieldSet unknown = com.google.protobuf.UnknownFieldSet.newBuilder().addField(9,
                com.google.protobuf.UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build();
        results.add(result("{\"request_id\":6,\"affected_rows\":1}").toBuilder().setUnknownFields(unknown).build());
        for (Flight.PutResult r : results) {
            byte[] wire = r.toByteArray();
            Object expected = read(() -> FlightMessages.answer(r));
            for (int available : new int[] {wire.length, 0, Math.max(1, wire.length / 2)}) {
                assertEquals(expected, read(() -> FlightMessages.answer(told(wire, available))),
                        r.getAppMetadata().toStringUtf8() + " with " + available + " of " + wire.length
                                + " bytes told available");
            }
        }
        assertEquals(new BulkAnswer(7, 1000), FlightMessages.answer(told(results.get(2).toByteArray(),
                results.get(2).getSerializedSize())));
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
