package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * With delete.enabled on the bulk path (inserts over Arrow Flight, deletes over row deletes), a stream of inserts
 * and tombstones of a few rows, each row written, deleted and written again many times, leaves exactly the rows
 * applying the stream in order leaves, with their last values: whether the path is chosen by the sink's own key or
 * by its connection string's {@code write_path}.
 */
class TombstonesOnTheBulkPathLeaveTheStreamsFinalRowsTest extends SinkTaskFixture {
    private static final int HOSTS = 7;
    private static final int RECORDS = 300;

    /** The stream: record i writes host i % 7 with cpu i, and every fifth record is that host's tombstone. */
    private static List<SinkRecord> stream() {
        List<SinkRecord> out = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            String host = "h" + (i % HOSTS);
            if (i % 5 == 4) {
                Map<String, Object> key = new HashMap<>(Map.of("host", host, "at", 5_000L));
                out.add(new SinkRecord(TOPIC, 0, null, key, null, null, i, T0, TimestampType.CREATE_TIME));
            } else {
                Map<String, Object> v = new HashMap<>(Map.of("host", host, "at", 5_000L, "cpu", (double) i));
                out.add(rec(P0, i, v));
            }
        }
        return out;
    }

    /** The rows applying the stream in order leaves: host to cpu. */
    private static Map<String, Double> expected() {
        Map<String, Double> rows = new TreeMap<>();
        for (int i = 0; i < RECORDS; i++) {
            String host = "h" + (i % HOSTS);
            if (i % 5 == 4) {
                rows.remove(host);
            } else {
                rows.put(host, (double) i);
            }
        }
        return rows;
    }

    private Map<String, Double> stored() {
        Map<String, Double> rows = new TreeMap<>();
        rowsByHost(TOPIC).forEach((h, r) -> rows.put(h, ((Number) r.get("cpu")).doubleValue()));
        return rows;
    }

    @Test
    void theSinksBulkKeyLeavesTheFinalRows() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.WRITE_PATH, "bulk", GreptimeSinkConfig.DELETES, "true",
                GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.BATCH_ROWS, "4", GreptimeSinkConfig.BUFFER_ROWS,
                "16", GreptimeSinkConfig.IN_FLIGHT, "4");
        server.faults().bulkAckDelay(Duration.ofMillis(5));
        task.put(stream());
        awaitCommitted(P0, RECORDS);
        assertEquals(expected(), stored());
    }

    @Test
    void theConnectionStringsBulkPathLeavesTheFinalRows() throws Exception {
        Map<String, String> p = props(GreptimeSinkConfig.DELETES, "true", GreptimeSinkConfig.TS_FIELD, "at");
        p.remove(GreptimeSinkConfig.ENDPOINTS);
        p.put(GreptimeSinkConfig.CONNECTION_STRING, "greptimedb://" + server.endpoint()
                + "/public?write_path=bulk&batch_rows=4&buffer_rows=16&batch_in_flight=4");
        task = new GreptimeSinkTask();
        task.initialize(new Ctx(Dlq.NONE));
        task.start(p);
        server.faults().bulkAckDelay(Duration.ofMillis(5));
        task.put(stream());
        awaitCommitted(P0, RECORDS);
        assertEquals(expected(), stored());
    }
}
