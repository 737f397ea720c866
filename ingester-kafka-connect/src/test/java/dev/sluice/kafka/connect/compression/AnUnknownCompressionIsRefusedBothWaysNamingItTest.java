package dev.sluice.kafka.connect.compression;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** An unknown compression is refused, never taken as none, whether from the sink's key or its connection string. */
class AnUnknownCompressionIsRefusedBothWaysNamingItTest {
    @Test
    void anUnknownNameIsRefusedBothWays() {
        ConfigException own = assertThrows(ConfigException.class, () -> new GreptimeSinkConfig(Map.of(
                GreptimeSinkConfig.ENDPOINTS, "h:4001", GreptimeSinkConfig.COMPRESSION, "snappy")));
        assertTrue(own.getMessage().contains(GreptimeSinkConfig.COMPRESSION) && own.getMessage().contains("snappy"),
                own.getMessage());
        ConfigException string = assertThrows(ConfigException.class, () -> new GreptimeSinkConfig(Map.of(
                GreptimeSinkConfig.CONNECTION_STRING, "greptimedb://h:4001/public?compression=snappy")));
        assertTrue(string.getMessage().contains("'compression'") && string.getMessage().contains("snappy"),
                string.getMessage());
    }
}
