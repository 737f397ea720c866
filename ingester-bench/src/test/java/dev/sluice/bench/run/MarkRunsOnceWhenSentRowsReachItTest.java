package dev.sluice.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MarkRunsOnceWhenSentRowsReachItTest {
    @Test
    void theBatchThatReachesTheMarkRunsItAndNoOtherDoes() {
        RunStats stats = new RunStats(10);
        List<Long> seen = new ArrayList<>();
        stats.markAt(250, () -> seen.add(stats.sentRows()));
        for (int i = 0; i < 5; i++) {
            stats.sent(100);
        }
        assertEquals(List.of(300L), seen, "run once, by the third batch of 100 rows");
    }

    @Test
    void aBatchEndingExactlyAtTheMarkRunsIt() {
        RunStats stats = new RunStats(10);
        List<Long> seen = new ArrayList<>();
        stats.markAt(200, () -> seen.add(stats.sentRows()));
        stats.sent(100);
        stats.sent(100);
        stats.sent(100);
        assertEquals(List.of(200L), seen);
    }

    @Test
    void aMarkBelowOneRowIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RunStats(1).markAt(0, () -> { }));
    }
}
