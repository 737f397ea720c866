package dev.sluice.kafka.connect.refusals;

import org.junit.jupiter.api.Test;

/**
 * A table option in {@code table.hints} the server cannot read ({@code append_mode=yes}) is a setting no record can
 * fix: the task fails without dead-lettering the records it was given and commits none of their offsets.
 */
class AnUnreadableTableOptionFailsTheTaskWithoutDeadLetteringTest {
    @Test
    void anAppendModeValueTheServerCannotReadFailsTheTask() {
        SetupFailures.assertSetupFailure("append_mode=yes", null);
    }
}
