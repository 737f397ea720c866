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
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Structured Streaming on either write path where later files update keys written by earlier ones: after a restart
 * that replays the last batch whose commit was not recorded, the table holds each key's final value.
 */
class StreamingReplayKeepsTheLatestValuePerKeyTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();
    static final StructType SCHEMA = StructType.fromDDL("device STRING, reading DOUBLE, ts TIMESTAMP");

    static void file(Path dir, String name, int from, int to, double reading) throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = from; i < to; i++) {
            lines.add("{\"device\":\"d" + i + "\",\"reading\":" + reading + ",\"ts\":\"2024-01-01T00:00:00Z\"}");
        }
        Files.write(dir.resolve(name), lines);
    }

    static void runToEnd(GreptimeTestServer server, String path, Path in, Path checkpoint) throws Exception {
        StreamingQuery q = LocalSpark.session().readStream().schema(SCHEMA).option("maxFilesPerTrigger", 1)
                .json(in.toString()).writeStream().format("greptimedb").option("endpoints", server.endpoint())
                .option("httpEndpoint", server.httpEndpoint()).option("table", "latest_" + path)
                .option("tags", "device").option("writePath", path)
                .option("checkpointLocation", checkpoint.toString()).outputMode("append")
                .trigger(Trigger.AvailableNow()).start();
        assertTrue(q.awaitTermination(120_000), "the query ended");
        if (q.exception().isDefined()) {
            throw q.exception().get();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"regular", "bulk"})
    void updatesAcrossBatchesAndAReplayedBatchLeaveEachKeysFinalValue(String path, GreptimeTestServer server,
            @TempDir Path dir) throws Exception {
        Path in = Files.createDirectories(dir.resolve("in"));
        Path checkpoint = dir.resolve("checkpoint");
        file(in, "1.json", 0, 100, 1.0);
        runToEnd(server, path, in, checkpoint);
        file(in, "2.json", 0, 50, 2.0);
        runToEnd(server, path, in, checkpoint);
        Path commits = checkpoint.resolve("commits");
        try (var s = Files.list(commits)) {
            Path last = s.filter(p -> p.getFileName().toString().matches("\\d+"))
                    .max((x, y) -> Integer.compare(Integer.parseInt(x.getFileName().toString()),
                            Integer.parseInt(y.getFileName().toString()))).orElseThrow();
            Files.delete(last);
            Files.deleteIfExists(commits.resolve("." + last.getFileName() + ".crc"));
        }
        file(in, "3.json", 25, 75, 3.0);
        runToEnd(server, path, in, checkpoint);

        Map<Object, Map<String, Object>> byDevice = LocalSpark.byKey(server.rows("latest_" + path), "device");
        assertEquals(100, byDevice.size());
        for (int i = 0; i < 100; i++) {
            double expected = i >= 25 && i < 75 ? 3.0 : i < 25 ? 2.0 : 1.0;
            assertEquals(expected, byDevice.get("d" + i).get("reading"), "device d" + i + " on the " + path + " path");
        }
    }
}
