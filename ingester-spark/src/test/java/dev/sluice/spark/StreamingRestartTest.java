package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structured Streaming into GreptimeDB: micro-batches commit once their rows are stored, and a batch Spark replays
 * from its checkpoint (written, but its commit not recorded) leaves the keyed table as it was.
 */
class StreamingRestartTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();
    static final StructType SCHEMA = StructType.fromDDL("device STRING, reading DOUBLE, ts TIMESTAMP");

    static void file(Path dir, String name, int from, int to) throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = from; i < to; i++) {
            lines.add("{\"device\":\"d" + i % 7 + "\",\"reading\":" + i + ".25,\"ts\":\"2024-01-01T00:00:00."
                    + String.format("%06d", i) + "Z\"}");
        }
        Files.write(dir.resolve(name), lines);
    }

    static void runToEnd(GreptimeTestServer server, Path in, Path checkpoint) throws Exception {
        StreamingQuery q = LocalSpark.session().readStream().schema(SCHEMA).json(in.toString()).writeStream()
                .format("greptimedb").option("endpoints", server.endpoint())
                .option("httpEndpoint", server.httpEndpoint()).option("table", "stream").option("tags", "device")
                .option("checkpointLocation", checkpoint.toString()).outputMode("append")
                .trigger(Trigger.AvailableNow()).start();
        assertTrue(q.awaitTermination(120_000), "the query ended");
        if (q.exception().isDefined()) {
            throw q.exception().get();
        }
    }

    @Test
    void aReplayedMicroBatchAfterRestartLeavesEveryRowOnce(GreptimeTestServer server, @TempDir Path dir)
            throws Exception {
        Path in = Files.createDirectories(dir.resolve("in"));
        Path checkpoint = dir.resolve("checkpoint");
        file(in, "a.json", 0, 1_000);
        runToEnd(server, in, checkpoint);
        assertEquals(1_000, server.rowCount("stream"));

        file(in, "b.json", 1_000, 1_500);
        runToEnd(server, in, checkpoint);
        // Forget that the last batch committed, as if the driver died after its tasks wrote: the restart replays it.
        Path commits = checkpoint.resolve("commits");
        try (var s = Files.list(commits)) {
            Path last = s.filter(p -> p.getFileName().toString().matches("\\d+"))
                    .max((x, y) -> Integer.compare(Integer.parseInt(x.getFileName().toString()),
                            Integer.parseInt(y.getFileName().toString()))).orElseThrow();
            Files.delete(last);
            Files.deleteIfExists(commits.resolve("." + last.getFileName() + ".crc"));
        }
        file(in, "c.json", 1_500, 2_000);
        runToEnd(server, in, checkpoint);

        Map<Object, Map<String, Object>> byTs = LocalSpark.byKey(server.rows("stream"), "ts");
        assertEquals(2_000, byTs.size());
        for (int i = 0; i < 2_000; i++) {
            Map<String, Object> r = byTs.get(1_704_067_200_000_000L + i);
            assertEquals("d" + i % 7, r.get("device"), "row " + i);
            assertEquals(i + 0.25, r.get("reading"), "row " + i);
        }
    }
}
