package dev.sluice.importer.internal.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The import's time and rate end where {@code --verify} starts asking the server (a {@code count(*)} of a large table
 * can take longer than the import itself); the verification's own time is reported beside them.
 */
class SummaryLeavesVerificationOutOfTheRateTest {
    @Test
    void secondsAndRowsPerSecondStopWhereVerificationStartsAndItsTimeIsShownApart() {
        Stats s = new Stats();
        s.rowsWritten.set(1_000);
        s.rowsRead.set(1_000);
        s.readingFrom = s.started + 500_000_000L;
        s.answeredAt = s.started + 2_000_000_000L;
        s.verifyFrom = s.started + 2_000_000_000L;
        s.verifyUntil = s.started + 5_000_000_000L;
        Summary summary = new Summary();
        summary.table = "t";
        summary.path = "bulk";
        summary.stateFile = "t.state";
        summary.verifyCount = 1_000L;
        summary.verifyExpected = 1_000L;
        summary.verifyOk = true;
        summary.fill(s);
        assertEquals(2.0, summary.seconds, 1e-9);
        String text = summary.text();
        assertTrue(text.contains("in 2.0 s (500 rows/s"), text);
        assertTrue(text.contains("verify: count(*) = 1,000 as expected (3.0 s)"), text);

        ByteArrayOutputStream json = new ByteArrayOutputStream();
        summary.writeJson("-", new PrintStream(json, true, StandardCharsets.UTF_8), System.err);
        String j = json.toString(StandardCharsets.UTF_8);
        assertTrue(j.contains("\"seconds\":2.0") && j.contains("\"rowsPerSecond\":500") && j.contains("\"verifySeconds\":3.0"),
                j);
    }
}
