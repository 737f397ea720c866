package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Context;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A line's time is stored exactly or the line is rejected: never cut to a coarser unit of an existing table (two
 * points one nanosecond apart would then replace each other).
 */
class TimesTheTableCannotHoldAreNotCutTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void nanosecondsIntoAnExistingMillisecondTableAreStoredExactlyOrRejected() throws Exception {
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(testkit.server().endpoint(), "public").build())) {
            assertTrue(db.createTable(TableSchema.newBuilder("msmem").addTag("host", DataType.String)
                    .addField("used", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build(),
                    Context.newBuilder().build()).join().isOk());
        }
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "msmem",
                ("msmem,host=a used=1 1700000000000000000\nmsmem,host=a used=2 1700000000000000001\n").getBytes(UTF_8));
        List<Map<String, Object>> rows = testkit.server().rows("msmem");
        assertEquals(2, rows.size() + r.rejects().size(), "stored " + rows + "\n" + r);
        assertTrue(r.rejects().isEmpty() || r.run().code() == 1, r.toString());
        assertTrue(r.rejects().stream().allMatch(j -> j.contains("milliseconds") && j.contains("1700000000000000001")),
                "a rejected line names its time and the table's unit: " + r);
    }
}
