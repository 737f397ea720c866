package dev.sluice.kafka.connect.connection;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * Every key of the connection string takes effect, or the sink refuses it naming the key: the sink keeps one batch
 * of a table in flight at a time whatever the string says (Kafka's order per partition must survive retries), so
 * {@code ordered_per_table=false} in {@code greptimedb.connection} is refused rather than silently overridden.
 */
class AConnectionKeyTheSinkOverridesIsRefusedNamingItTest {
    @Test
    void orderedPerTableFalseIsRefusedNamingTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> new GreptimeSinkConfig(Map.of(
                GreptimeSinkConfig.CONNECTION_STRING, "greptimedb://db1:4001/public?ordered_per_table=false")),
                "ordered_per_table=false was accepted, and the sink keeps batches ordered regardless");
        assertTrue(e.getMessage().contains("ordered_per_table"), e.getMessage());
    }
}
