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
            t.executeSql("CREATE TABLE cpu (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY (host, ts) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "')");
            t.executeSql("INSERT INTO cpu VALUES ('a', 0.5, TIMESTAMP '2024-01-01 00:00:00'), ('b', 1.5,"
                    + " TIMESTAMP '2024-01-01 00:00:00')").await();
            List<Map<String, Object>> rows = server.rows("cpu");
            assertEquals(2, rows.size());
        }
    }

    /**
     * Flink closes a job's class loader when the job ends: a thread the connector started that outlives the job
     * (a gRPC event loop, a timer, a buffer sweeper) then fails loading classes from the closed jar. Each writer's
     * close ends and joins every thread its client started, on both write paths.
     */
    @Test
    void noThreadTheConnectorStartedOutlivesTheJobOnEitherPath() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().start()) {
            for (String path : List.of("REGULAR", "BULK")) {
                TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
                t.executeSql("ADD JAR '" + jar().toAbsolutePath() + "'");
                String table = "threads_" + path.toLowerCase(java.util.Locale.ROOT);
                t.executeSql("CREATE TABLE " + table + " (host STRING, usage DOUBLE, ts TIMESTAMP(3), PRIMARY KEY"
                        + " (host, ts) NOT ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint()
                        + "', 'write.path'='" + path + "')");
                t.executeSql("INSERT INTO " + table + " VALUES ('a', 0.5, TIMESTAMP '2024-01-01 00:00:00'), ('b',"
                        + " 1.5, TIMESTAMP '2024-01-01 00:00:00')").await();
                assertEquals(2, server.rows(table).size());
                List<String> left = new ArrayList<>();
                for (Thread th : Thread.getAllStackTraces().keySet()) {
                    if (th.isAlive() && startedForTheJob(th)) {
                        left.add(th.getName() + " (context class loader " + th.getContextClassLoader() + ")");
                    }
                }
                assertTrue(left.isEmpty(), "threads alive after the " + path + " job ended: " + left);
            }
        }
    }

    /** A thread of the connector's client, or one running with a job's class loader as its context. */
    private static boolean startedForTheJob(Thread th) {
        String n = th.getName();
        if (n.startsWith("sluice-") || n.startsWith("grpc-")) {
            return true;
        }
        ClassLoader ccl = th.getContextClassLoader();
        if (ccl == null) {
            return false;
        }
        for (ClassLoader l = ClassLoader.getSystemClassLoader(); l != null; l = l.getParent()) {
            if (l == ccl) {
                return false;
            }
        }
        return ccl.getClass().getName().contains("UserCodeClassLoader");
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
