package dev.sluice.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class CostRoundsTest {
    /** A cell whose marginal is {@code marginal} µs/row: 1M rows, then 4M rows. */
    private static CostBenchmark.Result cell(String path, int batch, double marginal) {
        CostBenchmark.Measure shortRun = new CostBenchmark.Measure(1_000_000, 2.0, 1, 0, 300, 0, 0.5, 1_000_000);
        CostBenchmark.Measure longRun = new CostBenchmark.Measure(4_000_000, 2.0 + 3.0 * marginal, 3, 0, 320, 0, 1.0,
                4_000_000);
        return new CostBenchmark.Result(path, batch, shortRun, longRun, "ok");
    }

    @Test
    void eachCellReportsTheRoundOfItsMedianMarginalNotAnAverage() {
        CostBenchmark.Result a1 = cell("regular", 1_000, 1.4);
        CostBenchmark.Result a2 = cell("regular", 1_000, 1.1);
        CostBenchmark.Result a3 = cell("regular", 1_000, 1.3);
        CostBenchmark.Result b1 = cell("bulk", 1_000, 0.5);
        CostBenchmark.Result b2 = cell("bulk", 1_000, 0.9);
        CostBenchmark.Result b3 = cell("bulk", 1_000, 0.4);
        List<CostBenchmark.Result> median = CostBenchmark.medianOfRounds(List.of(List.of(a1, b1), List.of(a2, b2),
                List.of(a3, b3)));
        assertSame(a3, median.get(0));
        assertSame(b1, median.get(1));
        assertEquals(1.3, median.get(0).marginalMicrosPerRow(), 1e-9);
        // An even count takes the lower of the two middle rounds.
        assertSame(a3, CostBenchmark.medianOfRounds(List.of(List.of(a1), List.of(a2), List.of(a3),
                List.of(cell("regular", 1_000, 1.5)))).get(0));
    }

    @Test
    void aCellThatFailedInAnyRoundIsReportedFailedWithItsRound() {
        CostBenchmark.Result failed = new CostBenchmark.Result("bulk", 1_000, null, null, "FAILED: wrote 4000000 rows"
                + " but the target holds 3999000");
        List<CostBenchmark.Result> median = CostBenchmark.medianOfRounds(List.of(
                List.of(cell("regular", 1_000, 1.2), cell("bulk", 1_000, 0.5)),
                List.of(cell("regular", 1_000, 1.3), failed)));
        assertTrue(median.get(0).ok());
        assertFalse(median.get(1).ok());
        assertEquals("round 2: " + failed.status(), median.get(1).status());
    }

    @Test
    void roundsThatListDifferentCellsAreRefusedAndEveryRoundsMarginalIsPrinted() {
        assertThrows(IllegalArgumentException.class, () -> CostBenchmark.medianOfRounds(List.of(
                List.of(cell("regular", 1_000, 1.2)), List.of(cell("bulk", 1_000, 1.2)))));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CostBenchmark.printRounds(new PrintStream(bytes, true, StandardCharsets.UTF_8), List.of(
                List.of(cell("regular", 1_000, 1.4)), List.of(cell("regular", 1_000, 1.1))));
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("regular    1,000: 1.40 1.10"), printed);
    }
}
