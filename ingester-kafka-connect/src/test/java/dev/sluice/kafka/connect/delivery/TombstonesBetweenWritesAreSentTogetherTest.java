package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Tombstones between writes of other rows do not cost a flush and a request each: a put of 100 writes each followed
 * by a tombstone of another stored row reaches the server in a few requests, and leaves exactly the rows applying
 * the records in order leaves.
 */
class TombstonesBetweenWritesAreSentTogetherTest extends SinkTaskFixture {
    private static final int PAIRS = 100;

    private long requests(String kind) {
        return server.requests().stream().filter(r -> r.kind().equals(kind) && r.tables().contains(TOPIC)).count();
    }

    @Test
    void aHundredTombstonesBetweenWritesTakeAFewRequests() throws Exception {
        Ctx ctx = start(Dlq.NONE, GreptimeSinkConfig.DELETES, "true", GreptimeSinkConfig.TS_FIELD, "at",
                GreptimeSinkConfig.BATCH_ROWS, "1000", GreptimeSinkConfig.BUFFER_ROWS, "10000",
                GreptimeSinkConfig.FLUSH_INTERVAL, "100");
        List<SinkRecord> olds = new ArrayList<>();
        for (int i = 0; i < PAIRS; i++) {
            olds.add(rec(P0, i, new HashMap<>(Map.of("host", "old" + i, "at", 5_000L, "cpu", 1.0))));
        }
        putAndAwaitCommitted(ctx, P0, PAIRS, olds.toArray(new SinkRecord[0]));
        long inserts = requests("insert");
        long deletes = requests("delete");

        List<SinkRecord> mixed = new ArrayList<>();
        long offset = PAIRS;
        for (int i = 0; i < PAIRS; i++) {
            mixed.add(rec(P0, offset++, new HashMap<>(Map.of("host", "new" + i, "at", 5_000L, "cpu", 2.0))));
            Map<String, Object> key = new HashMap<>(Map.of("host", "old" + i, "at", 5_000L));
            mixed.add(new SinkRecord(TOPIC, 0, null, key, null, null, offset++, T0, TimestampType.CREATE_TIME));
        }
        task.put(mixed);
        awaitCommitted(P0, offset);

        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < PAIRS; i++) {
            expected.add("new" + i);
        }
        assertEquals(expected, new TreeSet<>(storedHosts(TOPIC)));
        long sent = requests("insert") - inserts + requests("delete") - deletes;
        assertTrue(sent < PAIRS / 5, PAIRS + " tombstones between writes took " + sent + " requests");
    }
}
