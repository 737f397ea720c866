package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connector jar used as {@code spark-submit --jars} would: Spark's {@code SparkSubmit} runs in its own JVM whose
 * class path is Spark's alone: {@code spark-sql_2.13} and its dependencies at Spark's versions, resolved by the build
 * on their own ({@code src/it/spark-classpath/pom.xml}), with none of the connector's or the Sluice client's classes.
 * A small application, compiled into its own jar, writes rows through {@code format("greptimedb")} on both write
 * paths into a testkit this test started, and the rows are read back from the testkit.
 */
class SparkSubmitJarsIT {
    static final int ROWS = 1_000;

    /** This project's modules and the client's libraries that only the connector jar brings (relocated there). */
    static final Pattern OURS = Pattern.compile(".*(/target/|/dev/sluice/|/io/grpc/|/org/apache/arrow/flight-).*");

    static final String APP = """
            import org.apache.spark.sql.SparkSession;

            public final class WriteRowsApp {
                public static void main(String[] args) throws Exception {
                    try {
                        ClassLoader.getSystemClassLoader().loadClass("dev.sluice.spark.GreptimeDataSource");
                        throw new IllegalStateException("the connector is on the JVM's class path, not only in --jars");
                    } catch (ClassNotFoundException expected) {
                        // it comes from --jars only
                    }
                    SparkSession spark = SparkSession.builder().appName("write-rows").getOrCreate();
                    for (String path : new String[] {"regular", "bulk"}) {
                        spark.range(0, %d, 1, 2).selectExpr("id", "CAST(id AS DOUBLE) * 2 + 0.5 AS v",
                                "timestamp_micros(id) AS ts").write().format("greptimedb")
                                .option("endpoints", args[0]).option("httpEndpoint", args[1])
                                .option("table", "submitted_" + path).option("tags", "id")
                                .option("writePath", path).mode("append").save();
                    }
                    spark.stop();
                }
            }
            """.formatted(ROWS);

    @Test
    void anApplicationSubmittedWithTheConnectorJarWritesThroughIt(@TempDir Path dir) throws Exception {
        Path connectorJar = Path.of(System.getProperty("spark.connector.jar", "target/missing.jar"));
        assertTrue(Files.isRegularFile(connectorJar), "the connector jar exists: " + connectorJar);
        Path classPathFile = Path.of(System.getProperty("spark.classpath.file", "target/missing-spark-classpath.txt"));
        assertTrue(Files.isRegularFile(classPathFile), "Spark's class path, resolved by the build: " + classPathFile);
        List<String> sparkClassPath = Arrays.asList(Files.readString(classPathFile).trim().split(File.pathSeparator));
        assertTrue(sparkClassPath.stream().anyMatch(e -> e.contains("spark-core_")), sparkClassPath.toString());
        List<String> ours = sparkClassPath.stream().filter(e -> OURS.matcher(e.replace(File.separatorChar, '/'))
                .matches()).toList();
        assertEquals(List.of(), ours, "Spark's class path holds none of the connector's or the client's libraries");

        Path appJar = compileApp(dir, String.join(File.pathSeparator, sparkClassPath));
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx768m");
            command.addAll(Arrays.asList(System.getProperty("spark.jvm.flags", "").trim().split("\\s+")));
            command.addAll(List.of("-cp", String.join(File.pathSeparator, sparkClassPath),
                    "org.apache.spark.deploy.SparkSubmit", "--master", "local[2]",
                    "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1",
                    "--jars", connectorJar.toAbsolutePath().toString(), "--class", "WriteRowsApp",
                    appJar.toString(), server.endpoint(), server.httpEndpoint()));
            Path log = dir.resolve("spark-submit.log");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
            }
            String output = Files.readString(log);
            assertEquals(0, p.exitValue(), "spark-submit's exit code; its output:\n" + tail(output));
            for (String path : List.of("regular", "bulk")) {
                Map<Object, Map<String, Object>> byId = LocalSpark.byKey(server.rows("submitted_" + path), "id");
                assertEquals(ROWS, byId.size(), path + " rows stored");
                for (long id = 0; id < ROWS; id++) {
                    assertEquals(id * 2 + 0.5, byId.get(id).get("v"), path + ": v of id " + id);
                }
            }
        }
    }

    /** Compiles the application against Spark's class path alone into its own jar. */
    private static Path compileApp(Path dir, String classPath) throws IOException {
        Path src = Files.createDirectories(dir.resolve("src"));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Files.writeString(src.resolve("WriteRowsApp.java"), APP);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-proc:none", "-cp", classPath, "-d", classes.toString(),
                src.resolve("WriteRowsApp.java").toString());
        assertEquals(0, rc, "the application compiles against Spark alone");
        Path jar = dir.resolve("write-rows-app.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files =
                Files.list(classes)) {
            for (Path f : files.toList()) {
                out.putNextEntry(new JarEntry(f.getFileName().toString()));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
        return jar;
    }

    private static String tail(String s) {
        return s.length() <= 8_000 ? s : s.substring(s.length() - 8_000);
    }
}
