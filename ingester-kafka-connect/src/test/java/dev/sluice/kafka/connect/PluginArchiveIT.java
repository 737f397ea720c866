package dev.sluice.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.Test;

/**
 * The built plugin archive, as a user installs it: its layout, and a Connect worker that finds the connector only
 * through {@code plugin.path} (failsafe runs this without the module's own classes on the class path, so the
 * connector and its dependencies load in Connect's isolated plugin class loader, next to Kafka's own Jackson and
 * Netty). Runs in {@code verify}, after {@code package} built the archive.
 */
class PluginArchiveIT {
    private static final String CONNECTOR = "dev.sluice.kafka.connect.GreptimeSinkConnector";

    private static Path pluginDir() throws IOException {
        Path target = Path.of("target");
        try (Stream<Path> s = Files.list(target)) {
            Path assembly = s.filter(p -> p.getFileName().toString().endsWith("-plugin") && Files.isDirectory(p))
                    .findFirst().orElseThrow(() -> new AssertionError("no plugin directory under target/"));
            try (Stream<Path> inner = Files.list(assembly)) {
                return inner.findFirst().orElseThrow();
            }
        }
    }

    @Test
    void theArchiveHasTheHubLayoutAndNoKafkaJars() throws Exception {
        Path dir = pluginDir();
        String manifest = Files.readString(dir.resolve("manifest.json"));
        assertTrue(manifest.contains("\"component_types\" : [ \"sink\" ]"), manifest);
        assertFalse(manifest.contains("${"), "the manifest's placeholders are filled in: " + manifest);
        assertTrue(Files.exists(dir.resolve("doc/README.md")));
        List<String> jars;
        try (Stream<Path> s = Files.list(dir.resolve("lib"))) {
            jars = s.map(p -> p.getFileName().toString()).toList();
        }
        assertTrue(jars.stream().anyMatch(j -> j.startsWith("ingester-kafka-connect-")), jars.toString());
        assertTrue(jars.stream().anyMatch(j -> j.startsWith("ingester-protocol-")), jars.toString());
        assertTrue(jars.stream().noneMatch(j -> j.startsWith("kafka-") || j.startsWith("connect-")
                || j.startsWith("slf4j-")), "the worker provides Kafka and SLF4J: " + jars);
        assertTrue(Files.exists(Path.of(dir.getParent().toString() + ".zip")), "the zip is built too");
    }

    @Test
    void aWorkerLoadsTheConnectorFromThePluginPathAndWrites() throws Exception {
        assertThrows(ClassNotFoundException.class, () -> Class.forName(CONNECTOR),
                "the connector must come from plugin.path only");
        Path dir = pluginDir();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            Map<String, String> worker = new HashMap<>();
            worker.put("plugin.path", dir.getParent().toAbsolutePath().toString());
            worker.put("offset.flush.interval.ms", "1000");
            EmbeddedConnectCluster connect = new EmbeddedConnectCluster.Builder().name("plugin-it").numWorkers(1)
                    .numBrokers(1).workerProps(worker).build();
            connect.start();
            try {
                connect.kafka().createTopic("plugged", 2);
                // Each send is confirmed by the broker before the next: right after a topic is created, an
                // idempotent producer's first batches can be refused out of sequence and retried forever (seen on a
                // loaded CI machine: 53 of 1,000 records never reached the topic), which is not the sink's doing.
                try (KafkaProducer<byte[], byte[]> p = connect.kafka().createProducer(Map.of("acks", "1"))) {
                    for (int i = 0; i < 1_000; i++) {
                        p.send(new ProducerRecord<>("plugged", i % 2, null, EmbeddedConnectTest.metricsJson(i, i % 2, i / 2)
                                .getBytes(StandardCharsets.UTF_8))).get(60, java.util.concurrent.TimeUnit.SECONDS);
                    }
                }
                Map<String, String> c = new HashMap<>();
                c.put("connector.class", CONNECTOR);
                c.put("tasks.max", "2");
                c.put("topics", "plugged");
                c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
                c.put("value.converter.schemas.enable", "false");
                c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
                c.put("greptimedb.endpoints", server.endpoint());
                c.put("tag.fields", "host,region,datacenter,service");
                c.put("timestamp.field", "ts");
                connect.configureConnector("plugged-sink", c);
                long deadline = System.nanoTime() + 120_000_000_000L;
                dev.sluice.Await.happensBy(deadline, () -> server.rowCount("plugged") >= 1_000);
                assertEquals(1_000, server.rowCount("plugged"));
            } finally {
                connect.stop();
            }
        }
    }
}
