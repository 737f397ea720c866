package dev.sluice.kafka.connect.compression;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * lz4 on the regular path is refused by the settings every integration shares, when the connector's configuration
 * is read, naming both of the connector's keys involved and what to set.
 */
class Lz4OnTheRegularPathIsRefusedByTheSharedSettingsNamingTheSinksKeysTest {
    @Test
    void theRefusalNamesTheCompressionAndThePathKeys() {
        ConfigException e = assertThrows(ConfigException.class, () -> new GreptimeSinkConfig(Map.of(
                GreptimeSinkConfig.ENDPOINTS, "127.0.0.1:4001", GreptimeSinkConfig.COMPRESSION, "lz4")));
        String m = e.getMessage();
        assertTrue(m.contains("lz4") && m.contains(GreptimeSinkConfig.COMPRESSION)
                && m.contains(GreptimeSinkConfig.WRITE_PATH) && m.contains("bulk write path only"), m);
    }

    @Test
    void theConnectionStringsRegularPathBesideTheSinksLz4IsRefusedToo() {
        ConfigException e = assertThrows(ConfigException.class, () -> new GreptimeSinkConfig(Map.of(
                GreptimeSinkConfig.CONNECTION_STRING, "greptimedb://127.0.0.1:4001/public?write_path=regular",
                GreptimeSinkConfig.COMPRESSION, "lz4")));
        String m = e.getMessage();
        assertTrue(m.contains("lz4") && m.contains(GreptimeSinkConfig.COMPRESSION), m);
    }
}
