package dev.sluice.kafka.connect.compression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.write.Compression;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * The sink reads a compression name by the client's one rule, whether the name comes from its own key or from
 * its connection string: case does not matter, and an unknown name is refused naming the key and the name.
 */
class ACompressionNameMeansTheSameInTheSinksKeyAndItsConnectionStringTest {
    @Test
    void anUpperCaseNameIsTheSameCompressionBothWays() {
        GreptimeSinkConfig own = new GreptimeSinkConfig(Map.of(GreptimeSinkConfig.ENDPOINTS, "h:4001",
                GreptimeSinkConfig.COMPRESSION, "ZSTD"));
        GreptimeSinkConfig string = new GreptimeSinkConfig(Map.of(GreptimeSinkConfig.CONNECTION_STRING,
                "greptimedb://h:4001/public?compression=ZSTD"));
        assertEquals(Compression.Zstd, string.compression());
        assertEquals(string.compression(), own.compression());
    }
}
