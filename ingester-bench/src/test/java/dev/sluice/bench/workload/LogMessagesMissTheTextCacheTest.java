package dev.sluice.bench.workload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LogMessagesMissTheTextCacheTest {
    /** The client keeps encoded text by instance, up to 1 MiB per column: about 500 messages of 2 KB. */
    private static final int CACHE_HOLDS_ABOUT = 512;

    @Test
    void aLogsBatchRepeatsFewMessageInstancesAsFreshLogLinesWould() {
        LogWorkload logs = new LogWorkload(42);
        int message = logs.schema().indexOf("log_message");
        Set<Object> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        int[] rows = {0};
        logs.fill(row -> {
            distinct.add(row[message]);
            rows[0]++;
        }, 0, 65_536);
        // With a few dozen pooled messages every row after the first few would be a hit in the client's cache
        // of encoded text, and the logs figures would leave out encoding the largest value of each row.
        assertTrue(distinct.size() > 20 * CACHE_HOLDS_ABOUT, distinct.size() + " distinct message instances in "
                + rows[0] + " rows");
    }
}
