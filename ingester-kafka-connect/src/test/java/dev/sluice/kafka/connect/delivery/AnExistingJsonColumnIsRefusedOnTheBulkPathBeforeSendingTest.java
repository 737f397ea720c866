package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import dev.sluice.testkit.GreptimeTestServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The bulk path carries no JSON column, by the client's one rule: a record whose field lands in an existing JSON
 * column, sent on the bulk path, is refused by the sink before any write request is sent (neither a bulk batch nor the
 * row written alone over the regular path), and the refusal names the table and the column (whether it fails the
 * task or goes to the dead-letter queue), as Spark refuses it at planning.
 */
class AnExistingJsonColumnIsRefusedOnTheBulkPathBeforeSendingTest extends SinkTaskFixture {
    private static final Set<String> WRITES = Set.of("insert", "delete", "bulk");

    /** Write requests the testkit received: inserts, deletes and bulk batches (not DDL or health checks). */
    private long writeRequests() {
        return server.requests().stream().filter(r -> WRITES.contains(r.kind())).count();
    }

    @Test
    void aTextIntoAnExistingJsonColumnIsRefusedNamingTableAndColumn() throws Exception {
        // The sink learns the existing table's column types from GreptimeDB's HTTP API (gRPC serves no query).
        server.close();
        server = GreptimeTestServer.builder().httpPort(0).start();
        Ctx first = start(Dlq.OK);
        Map<String, Object> v = new HashMap<>(metricValue(P0, 0, 1.0));
        v.put("attrs", new HashMap<>(Map.of("k", "v")));
        putAndAwaitCommitted(first, P0, 1, rec(P0, 0, v));
        TableSchema schema = server.schema(TOPIC);
        assertEquals(DataType.Json, schema.column(schema.indexOf("attrs")).dataType());
        task.stop();

        Ctx ctx = new Ctx(Dlq.OK);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        task.start(props(GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.RETRY_ATTEMPTS, "2",
                GreptimeSinkConfig.RETRY_DELIVERY, "1000", GreptimeSinkConfig.REDELIVERY_BACKOFF, "0",
                GreptimeSinkConfig.HTTP_URL, "http://" + server.httpEndpoint()));
        long writesBefore = writeRequests();
        Map<String, Object> text = new HashMap<>(metricValue(P0, 1, 2.0));
        text.put("attrs", "{\"k\":1}");
        List<SinkRecord> log = List.of(rec(P0, 0, v), rec(P0, 1, text));
        AtomicReference<List<SinkRecord>> pending = new AtomicReference<>(new ArrayList<>(log.subList(1, 2)));
        AtomicReference<ConnectException> failed = new AtomicReference<>();
        await("the record settled or the task failed", () -> {
            try {
                task.put(pending.getAndSet(List.of()));
                return committed(P0) == 2;
            } catch (RetriableException e) {
                Long from = ctx.rewinds.remove(P0);
                if (from != null) {
                    pending.set(new ArrayList<>(log.subList(from.intValue(), log.size())));
                }
                return false;
            } catch (ConnectException e) {
                failed.set(e);
                return true;
            }
        });
        StringBuilder said = new StringBuilder();
        for (Throwable t = failed.get(); t != null; t = t.getCause()) {
            said.append(t.getMessage()).append(" | ");
        }
        for (Throwable e : ctx.dlqErrors) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                said.append(t.getMessage()).append(" | ");
            }
        }
        String m = said.toString();
        assertTrue(m.contains(TOPIC) && m.contains("attrs"), "the refusal names table and column: " + m);
        assertEquals(writesBefore, writeRequests(), () -> "no write request (bulk, or the row written alone over the"
                + " regular path) was sent: " + server.requests() + " | " + m);
    }
}
