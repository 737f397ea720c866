package dev.sluice.testkit;

import static dev.sluice.testkit.BulkAnswersTest.create;
import static dev.sluice.testkit.BulkAnswersTest.field;
import static dev.sluice.testkit.TestkitProtocolTest.TS;
import static dev.sluice.testkit.TestkitProtocolTest.insert;
import static dev.sluice.testkit.TestkitProtocolTest.row;
import static dev.sluice.testkit.TestkitProtocolTest.ts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.gson.JsonParser;
import dev.sluice.write.StatusCode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.AsyncPutListener;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * On a DoPut stream the server answers each batch in order and ends the stream with the error of the first batch it
 * refuses; the answers of the batches before it go out first, however late they are
 * ({@code src/servers/src/grpc/greptime_handler.rs} put_record_batches writes answers and the error into one
 * first-in first-out channel that {@code src/servers/src/grpc/flight.rs} do_put drains). Driven by Arrow's own Flight
 * client (no Sluice code).
 */
class ARefusedBulkBatchIsAnsweredAfterTheBatchesBeforeItTest {
    @Test
    void delayedAnswersOfEarlierBatchesGoOutBeforeTheError() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start();
             BufferAllocator allocator = new RootAllocator()) {
            create(server, insert("t", List.of(TS), row(ts(1))), null, null);
            server.faults().bulkAckDelay(Duration.ofMillis(200));
            server.faults().failEvery(3, StatusCode.RateLimited, "slow down");
            List<Long> answered = new ArrayList<>();
            Schema schema = new Schema(List.of(field("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null), false)));
            try (FlightClient client = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
                 VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
                AsyncPutListener results = new AsyncPutListener() {
                    @Override
                    public void onNext(PutResult val) {
                        ArrowBuf md = val.getApplicationMetadata();
                        byte[] json = new byte[(int) md.readableBytes()];
                        md.getBytes(0, json);
                        synchronized (answered) {
                            answered.add(JsonParser.parseString(new String(json, StandardCharsets.UTF_8))
                                    .getAsJsonObject().get("request_id").getAsLong());
                        }
                    }
                };
                FlightClient.ClientStreamListener stream = client.startPut(FlightDescriptor.path("t"), root, results);
                for (long id = 1; id <= 4; id++) {
                    root.allocateNew();
                    ((TimeStampMilliVector) root.getVector("ts")).set(0, 10 + id);
                    root.setRowCount(1);
                    byte[] md = ("{\"request_id\":" + id + "}").getBytes(StandardCharsets.UTF_8);
                    ArrowBuf buf = allocator.buffer(md.length);
                    buf.writeBytes(md);
                    stream.putNext(buf);
                }
                stream.completed();
                FlightRuntimeException e = assertThrows(FlightRuntimeException.class, results::getResult);
                assertEquals(FlightStatusCode.RESOURCE_EXHAUSTED, e.status().code());
            }
            synchronized (answered) {
                assertEquals(List.of(0L, 1L, 2L), answered, "the opening answer, then batches 1 and 2, then the error");
            }
            assertEquals(3, server.rowCount("t"));
        }
    }
}
