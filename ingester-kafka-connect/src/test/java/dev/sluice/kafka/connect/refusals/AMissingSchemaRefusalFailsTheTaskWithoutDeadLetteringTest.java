package dev.sluice.kafka.connect.refusals;

import dev.sluice.write.StatusCode;
import org.junit.jupiter.api.Test;

/**
 * The same InvalidArguments answer that the Flink connector takes for a setup failure ("Failed to find schema": the
 * database is gone) fails the Kafka task without dead-lettering any record: no record is to blame, so none goes to
 * the dead-letter queue and no offset is committed.
 */
class AMissingSchemaRefusalFailsTheTaskWithoutDeadLetteringTest {
    @Test
    void aMissingSchemaFailsTheTask() {
        SetupFailures.assertSetupFailure(null, server -> server.faults().failEvery(1, StatusCode.InvalidArguments,
                "Failed to find schema, schema info: greptime.public"));
    }
}
