package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class ConfigTest {
    private static Map<String, String> base() {
        Map<String, String> m = new HashMap<>();
        m.put(GreptimeSinkConfig.ENDPOINTS, "127.0.0.1:4001");
        return m;
    }

    private static ConfigException invalid(String key, String value) {
        Map<String, String> m = base();
        m.put(key, value);
        return assertThrows(ConfigException.class, () -> new GreptimeSinkConfig(m));
    }

    @Test
    void defaultsNeedOnlyEndpoints() {
        GreptimeSinkConfig c = new GreptimeSinkConfig(base());
        assertEquals(List.of("127.0.0.1:4001"), c.endpoints());
        assertEquals("public", c.getString(GreptimeSinkConfig.DATABASE));
        assertEquals("regular", c.getString(GreptimeSinkConfig.WRITE_PATH));
        assertEquals("${topic}", c.getString(GreptimeSinkConfig.TABLE_FORMAT));
        assertEquals(10_000, c.getInt(GreptimeSinkConfig.BATCH_ROWS));
        assertEquals(200L, c.getLong(GreptimeSinkConfig.FLUSH_INTERVAL));
        assertFalse(c.getBoolean(GreptimeSinkConfig.DELETES));
        assertEquals("", c.password());
        assertFalse(c.appendModeHint());
    }

    @Test
    void missingEndpointsAreReportedByValidate() {
        Map<String, ConfigValue> v = new HashMap<>();
        for (ConfigValue cv : new GreptimeSinkConnector().config().validate(Map.of())) {
            v.put(cv.name(), cv);
        }
        assertFalse(v.get(GreptimeSinkConfig.ENDPOINTS).errorMessages().isEmpty());
    }

    @Test
    void badValuesNameTheKey() {
        assertTrue(invalid(GreptimeSinkConfig.ENDPOINTS, "localhost").getMessage().contains("greptimedb.endpoints"));
        assertTrue(invalid(GreptimeSinkConfig.ENDPOINTS, "h:99999").getMessage().contains("not host:port"));
        assertTrue(invalid(GreptimeSinkConfig.WRITE_PATH, "fast").getMessage().contains("write.path"));
        assertTrue(invalid(GreptimeSinkConfig.TS_UNIT, "min").getMessage().contains("timestamp.unit"));
        assertTrue(invalid(GreptimeSinkConfig.TABLE_REGEX, "(").getMessage().contains("not a regular expression"));
        assertTrue(invalid(GreptimeSinkConfig.TABLE_FORMAT, "${partition}").getMessage().contains("${topic}"));
        assertTrue(invalid(GreptimeSinkConfig.COLUMN_TYPES, "cpu:Float65").getMessage().contains("Float65"));
        assertTrue(invalid(GreptimeSinkConfig.COLUMN_TYPES, "cpu").getMessage().contains("column:Type"));
        assertTrue(invalid(GreptimeSinkConfig.HINTS, "ttl").getMessage().contains("key=value"));
        assertTrue(invalid(GreptimeSinkConfig.BATCH_ROWS, "0").getMessage().contains("batch.max.rows"));
        assertTrue(invalid(GreptimeSinkConfig.COMPRESSION, "lz4").getMessage().contains("bulk"));
        assertTrue(invalid(GreptimeSinkConfig.BUFFER_ROWS, "10").getMessage().contains("max.buffered.rows"));
        assertTrue(invalid(GreptimeSinkConfig.TLS_CERT, "/c.pem").getMessage().contains("greptimedb.tls.client.key.path"));
        assertTrue(invalid(GreptimeSinkConfig.TABLE_REGEX, "a(.*)").getMessage().contains("table.name.replacement"));
    }

    @Test
    void aTableHintGivenTwiceIsRefusedNamingIt() {
        String message = invalid(GreptimeSinkConfig.HINTS, "ttl=7d, ttl = 1d").getMessage();
        assertTrue(message.contains("table.hints") && message.contains("'ttl' is given twice"), message);
    }

    @Test
    void appendModeHintIsRecognised() {
        Map<String, String> m = base();
        m.put(GreptimeSinkConfig.HINTS, "ttl=7d, append_mode = true");
        assertTrue(new GreptimeSinkConfig(m).appendModeHint());
    }

    @Test
    void decimalOverrideParsesPrecisionAndScale() {
        Map<String, String> m = base();
        m.put(GreptimeSinkConfig.COLUMN_TYPES, "price:Decimal128(20,4),cpu:float64");
        new GreptimeSinkConfig(m);
        assertEquals(new dev.sluice.data.DecimalType(20, 4), dev.sluice.kafka.connect.internal.ColumnTypeOverrides
                .parse("price:Decimal128(20,4)").get("price").decimalType());
    }

    @Test
    void aRenamedKeyIsRefusedNamingTheKeyThatReplacesIt() {
        for (var e : GreptimeSinkConfig.RENAMED.entrySet()) {
            java.util.Map<String, String> props = new java.util.HashMap<>(base());
            props.put(e.getKey(), "100");
            org.apache.kafka.common.config.ConfigException x = org.junit.jupiter.api.Assertions.assertThrows(
                    org.apache.kafka.common.config.ConfigException.class, () -> new GreptimeSinkConfig(props));
            org.junit.jupiter.api.Assertions.assertTrue(x.getMessage().contains(e.getKey())
                    && x.getMessage().contains(e.getValue()), x.getMessage());
        }
    }
}
