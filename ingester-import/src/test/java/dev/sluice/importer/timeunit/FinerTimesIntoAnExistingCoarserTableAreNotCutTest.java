package dev.sluice.importer.timeunit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Context;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CSV time finer than an existing table's time unit is stored exactly or rejected: cut to the table's unit, two
 * rows of one series would share a key and one would replace the other without a word.
 */
class FinerTimesIntoAnExistingCoarserTableAreNotCutTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void microsecondsIntoAnExistingMillisecondTableAreNotCutSilently() throws Exception {
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(testkit.server().endpoint(), "public").build())) {
            assertTrue(db.createTable(TableSchema.newBuilder("csvms").addTag("host", DataType.String)
                    .addField("used", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build(),
                    Context.newBuilder().build()).join().isOk());
        }
        Path f = dir.resolve("csvms.csv");
        Files.writeString(f, "host,used,ts\na,1,2024-05-01T10:00:00.000100Z\na,2,2024-05-01T10:00:00.000200Z\n");
        Path rej = dir.resolve("rej.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "csvms", "--on-error", "skip", "--rejects",
                rej.toString(), "--state", dir.resolve("s.state").toString(), f.toString()));
        int rejected = Files.exists(rej) ? Files.readAllLines(rej).size() : 0;
        assertEquals(2, testkit.server().rows("csvms").size() + rejected,
                "stored " + testkit.server().rows("csvms") + "\n" + r);
    }
}
