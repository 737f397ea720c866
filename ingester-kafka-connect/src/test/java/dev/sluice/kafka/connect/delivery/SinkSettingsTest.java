package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sink's settings as documented: defaults match the README and the config definition, malformed or inconsistent
 * settings are refused by validation, database hints and compression reach the server, and the connector hands
 * every task the same complete configuration.
 */
class SinkSettingsTest extends SinkTaskFixture {
    /**
     * The README says max.buffered.rows is "At least batch.max.rows": a configuration below that is refused by the
     * connector's validation (or the task's start) rather than accepted.
     */
    @Test
    void bufferMaxRowsBelowBatchMaxRowsIsRefusedAsDocumented() {
        Map<String, String> p = props(GreptimeSinkConfig.BATCH_ROWS, "1000", GreptimeSinkConfig.BUFFER_ROWS, "10");
        p.put("connector.class", "dev.sluice.kafka.connect.GreptimeSinkConnector");
        p.put("topics", TOPIC);
        org.apache.kafka.common.config.Config result = new dev.sluice.kafka.connect.GreptimeSinkConnector()
                .validate(p);
        boolean flagged = result.configValues().stream().anyMatch(v -> !v.errorMessages().isEmpty()
                && (v.name().equals(GreptimeSinkConfig.BUFFER_ROWS) || v.name().equals(GreptimeSinkConfig.BATCH_ROWS)));
        boolean startFails = false;
        GreptimeSinkTask t = new GreptimeSinkTask();
        t.initialize(new Ctx(Dlq.NONE));
        try {
            t.start(p);
        } catch (RuntimeException e) {
            startFails = true;
        } finally {
            try {
                t.stop();
            } catch (RuntimeException ignored) {
                // not started
            }
        }
        assertTrue(flagged || startFails, "max.buffered.rows=10 < batch.max.rows=1000 accepted silently");
    }

    /**
     * The defaults the README's table lists are the ones a config without those keys gets (read through the
     * public ConfigDef), and the connector's validate accepts a minimal config (endpoints only).
     */
    @Test
    void readmeDefaultsMatchTheConfigDefAndAMinimalConfigValidates() throws Exception {
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("README.md"));
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("greptimedb.database", "public");
        expected.put("write.path", "regular");
        expected.put("batch.max.rows", "10000");
        expected.put("batch.max.bytes", "8388608");
        expected.put("batch.flush.interval.ms", "200");
        expected.put("max.in.flight.requests", "4");
        expected.put("max.buffered.rows", "50000");
        expected.put("max.block.ms", "30000");
        expected.put("retry.max.attempts", "2147483647");
        expected.put("retry.delivery.timeout.ms", "120000");
        expected.put("redelivery.backoff.ms", "5000");
        expected.put("flush.timeout.ms", "30000");
        expected.put("timestamp.unit", "ms");
        expected.put("timestamp.column", "ts");
        expected.put("delete.enabled", "false");
        expected.put("table.name.format", "${topic}");
        GreptimeSinkConfig cfg = new GreptimeSinkConfig(Map.of(GreptimeSinkConfig.ENDPOINTS, "h:4001"));
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertTrue(readme.contains("| `" + e.getKey() + "` | ") && readme.contains(" | " + e.getValue() + " | "),
                    "README lists " + e);
            assertEquals(e.getValue(), String.valueOf(cfg.originals().getOrDefault(e.getKey(),
                    cfg.values().get(e.getKey()))), e.getKey());
        }
        org.apache.kafka.common.config.Config result = new dev.sluice.kafka.connect.GreptimeSinkConnector()
                .validate(new HashMap<>(Map.of(GreptimeSinkConfig.ENDPOINTS, server.endpoint(),
                        "connector.class", "dev.sluice.kafka.connect.GreptimeSinkConnector", "topics", TOPIC)));
        result.configValues().forEach(v -> assertEquals(List.of(), v.errorMessages(), v.name()));
    }

    /** column.types with an unknown type or without a colon is refused by the connector's validation. */
    @Test
    void malformedColumnTypesAreRefusedByValidation() {
        for (String bad : List.of("cpu:Float65", "cpu", "cpu:Decimal128(50,2)", ":Int64")) {
            Map<String, String> p = props(GreptimeSinkConfig.COLUMN_TYPES, bad);
            p.put("connector.class", "dev.sluice.kafka.connect.GreptimeSinkConnector");
            p.put("topics", TOPIC);
            org.apache.kafka.common.config.Config result = new dev.sluice.kafka.connect.GreptimeSinkConnector()
                    .validate(p);
            boolean flagged = result.configValues().stream()
                    .anyMatch(v -> v.name().equals(GreptimeSinkConfig.COLUMN_TYPES) && !v.errorMessages().isEmpty());
            assertTrue(flagged, "column.types=" + bad + " accepted");
        }
    }

    /** greptimedb.database, table.hints and write.compression reach the server: rows in that database, ttl set. */
    @Test
    void databaseHintsAndCompressionAreApplied() throws Exception {
        server.createDatabase("edge_db");
        start(Dlq.NONE, GreptimeSinkConfig.DATABASE, "edge_db", GreptimeSinkConfig.HINTS, "ttl=7d",
                GreptimeSinkConfig.COMPRESSION, "zstd");
        task.put(List.of(metric(P0, 0, 1.0), metric(P0, 1, 2.0)));
        awaitCommitted(P0, 2);
        assertEquals(2, server.rowCount("edge_db", TOPIC));
        assertFalse(server.tables().contains(TOPIC), "nothing in public");
        String ttl = server.tableOptions("edge_db", TOPIC).get("ttl");
        assertTrue(ttl != null && (ttl.equals("7d") || ttl.equals("7days")), "ttl of the created table: " + ttl);
    }

    /** The connector hands tasks.max identical configs carrying every setting, and its config() is the ConfigDef. */
    @Test
    void theConnectorHandsEveryTaskTheSameCompleteConfig() {
        dev.sluice.kafka.connect.GreptimeSinkConnector c = new dev.sluice.kafka.connect.GreptimeSinkConnector();
        Map<String, String> p = props(GreptimeSinkConfig.COLUMN_TYPES, "cpu:Float64");
        p.put("topics", TOPIC);
        c.start(p);
        try {
            List<Map<String, String>> configs = c.taskConfigs(3);
            assertEquals(3, configs.size());
            for (Map<String, String> m : configs) {
                assertEquals("cpu:Float64", m.get(GreptimeSinkConfig.COLUMN_TYPES));
                assertEquals(server.endpoint(), m.get(GreptimeSinkConfig.ENDPOINTS));
            }
            assertEquals(GreptimeSinkTask.class, c.taskClass());
            assertTrue(c.config().names().contains(GreptimeSinkConfig.BUFFER_ROWS));
            assertFalse(c.version() == null || c.version().isBlank());
        } finally {
            c.stop();
        }
    }
}
