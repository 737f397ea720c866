package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code mode("overwrite")} truncates the table before the write, read back from the testkit. */
class OverwriteTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @Test
    void overwriteReplacesEveryRowOfTheTable(GreptimeTestServer server) {
        LocalSpark.write(LocalSpark.session().range(0, 10).selectExpr("id", "timestamp_micros(id) AS ts"), server,
                "replaced", "append", "tags", "id");
        assertEquals(10, server.rowCount("replaced"));
        LocalSpark.write(LocalSpark.session().range(100, 103).selectExpr("id", "timestamp_micros(id) AS ts"), server,
                "replaced", "overwrite");
        Map<Object, Map<String, Object>> stored = LocalSpark.byKey(server.rows("replaced"), "id");
        assertEquals(java.util.Set.of(100L, 101L, 102L), stored.keySet());
    }
}
