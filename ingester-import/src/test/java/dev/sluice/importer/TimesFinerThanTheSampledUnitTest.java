package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The time index's unit comes from the sampled rows; a later row with a finer time must not be cut to that unit
 * without a word, since two rows of one series then share a key and one of them silently replaces the other.
 */
class TimesFinerThanTheSampledUnitTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test

    void aRowWithMoreFractionDigitsThanTheSampleIsStoredOrRejectedNeverMergedSilently() throws IOException {
        Path f = dir.resolve("frac.csv");
        Files.writeString(f, "id,n,ts\n"
                + "1,5,2024-01-01T00:00:00.001Z\n"
                + "2,6,2024-01-01T00:00:00.002Z\n"
                + "1,7,2024-01-01T00:00:00.003001Z\n"
                + "1,8,2024-01-01T00:00:00.003002Z\n");
        Path rejects = dir.resolve("frac.rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--sample", "2", "--tags", "id", "--on-error", "skip", "--rejects",
                rejects.toString(), f.toString()));
        Set<Long> stored = new TreeSet<>();
        testkit.server().rows("frac").forEach(m -> stored.add((Long) m.get("n")));
        List<String> rejected = Files.exists(rejects) ? Files.readAllLines(rejects) : List.of();
        // every row of the file is either in the table or in the rejects file
        assertEquals(4, stored.size() + rejected.size(), r + "\nstored n: " + stored + "\nrejected: " + rejected);
        assertTrue(rejected.isEmpty() || r.code() == 1, r.toString());
    }

    @Test
    void timesWithinTheSampledUnitKeepEveryRow() throws IOException {
        Path f = dir.resolve("micro.csv");
        Files.writeString(f, "id,n,ts\n"
                + "1,5,2024-01-01T00:00:00.000001Z\n"
                + "1,6,2024-01-01T00:00:00.000002Z\n"
                + "1,7,2024-01-01T00:00:00.003001Z\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", f.toString()));
        assertEquals(0, r.code(), r.toString());
        assertEquals(3, testkit.server().rowCount("micro"));
        assertEquals(dev.sluice.data.DataType.TimestampMicrosecond,
                testkit.server().schema("micro").column(testkit.server().schema("micro").indexOf("ts")).dataType());
    }
}
