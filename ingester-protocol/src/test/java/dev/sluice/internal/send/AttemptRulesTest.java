package dev.sluice.internal.send;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The rules every write path applies before sending a failed write again. */
class AttemptRulesTest {
    private static final RetryPolicy THREE = RetryPolicy.newBuilder().maxAttempts(3)
            .deliveryTimeout(Duration.ofSeconds(10)).backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build();
    private static final long NOW = 1_000_000_000L;
    private static final long DEADLINE = NOW + Duration.ofSeconds(10).toNanos();

    @Test
    void aRetryableFailureWithAttemptsAndTimeLeftIsSentAgain() {
        assertNull(AttemptRules.refusal(THREE, false, false, false, 1, "write", DEADLINE, NOW, 100_000_000L));
        assertNull(AttemptRules.refusal(THREE, true, false, false, 2, "write", 0, NOW, 100_000_000L),
                "an unambiguous failure is resent to an append-mode table, and 0 means no deadline");
    }

    @Test
    void eachRuleRefusesWithItsReason() {
        assertEquals(AttemptRules.SHUTTING_DOWN,
                AttemptRules.refusal(THREE, false, true, false, 1, "write", DEADLINE, NOW, 1));
        assertEquals("append-mode tables are not resent after an ambiguous failure",
                AttemptRules.refusal(THREE, true, false, true, 1, "write", DEADLINE, NOW, 1));
        assertEquals("batch 7 used its 3 attempts",
                AttemptRules.refusal(THREE, false, false, false, 3, "batch 7", DEADLINE, NOW, 1));
        assertEquals("the delivery deadline of 10000 ms passed",
                AttemptRules.refusal(THREE, false, false, false, 1, "write", DEADLINE, NOW, DEADLINE - NOW));
    }

    @Test
    void theBackoffIsThePolicysForTheNextAttempt() {
        for (int made = 1; made < 6; made++) {
            long wait = AttemptRules.backoffNanos(THREE, made);
            assertTrue(wait >= 0 && wait <= Duration.ofSeconds(1).toNanos(), made + ": " + wait);
        }
    }
}
