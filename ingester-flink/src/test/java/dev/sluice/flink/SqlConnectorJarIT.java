package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The SQL connector jar, as a user adds it to a session with {@code ADD JAR}: this test runs without the module's
 * classes on its class path, so the factory and the client come from the jar alone.
 */
class SqlConnectorJarIT {
    static Path jar() {
        Path p = Path.of(System.getProperty("sql.connector.jar", "target/missing.jar"));
        assertTrue(Files.isRegularFile(p), "the SQL connector jar exists: " + p);
        return p;
    }

    @Test
    void theModuleIsNotOnTheClassPath() {
        assertThrows(ClassNotFoundException.class,
                () -> Class.forName("dev.sluice.flink.table.GreptimeDynamicTableFactory"));
    }

    @Test
    void aSessionLoadsTheJarAndWritesThroughIt() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().start()) {
            TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
            t.executeSql("ADD JAR '" + jar().toAbsolutePath() + "'");
            t.executeSql("CREATE TABLE cpu (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY (host) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "')");
            t.executeSql("INSERT INTO cpu VALUES ('a', 0.5, TIMESTAMP '2024-01-01 00:00:00'), ('b', 1.5,"
                    + " TIMESTAMP '2024-01-01 00:00:00')").await();
            List<Map<String, Object>> rows = server.rows("cpu");
            assertEquals(2, rows.size());
        }
    }

    @Test
    void theClientsDependenciesAreRelocatedAndFlinkIsNotBundled() throws Exception {
        List<String> unrelocated = new ArrayList<>();
        boolean factoryListed;
        try (JarFile j = new JarFile(jar().toFile())) {
            for (JarEntry e : java.util.Collections.list(j.entries())) {
                String n = e.getName();
                if (n.endsWith(".class") && (n.startsWith("io/grpc/") || n.startsWith("com/google/")
                        || n.startsWith("io/netty/") || n.startsWith("org/apache/arrow/")
                        || n.startsWith("com/fasterxml/") || n.startsWith("org/apache/flink/")
                        || n.startsWith("org/slf4j/") || n.startsWith("org/apache/commons/"))) {
                    unrelocated.add(n);
                }
            }
            String services = new String(j.getInputStream(j.getEntry(
                    "META-INF/services/org.apache.flink.table.factories.Factory")).readAllBytes(), StandardCharsets.UTF_8);
            factoryListed = services.contains("dev.sluice.flink.table.GreptimeDynamicTableFactory");
        }
        assertTrue(unrelocated.isEmpty(), "classes outside dev.sluice.flink.shaded: " + unrelocated.subList(0,
                Math.min(20, unrelocated.size())));
        assertTrue(factoryListed, "the factory is registered for Flink's service loader");
    }
}
