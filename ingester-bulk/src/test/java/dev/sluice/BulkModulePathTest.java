package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bulk writes on the module path: an application module that requires only {@code dev.sluice.protocol} (whose
 * exported {@code dev.sluice.bulk} package holds the bulk API) writes bulk batches once the bulk module is on the
 * module path, where the client finds it as a service.
 */
@SharesJvm
class BulkModulePathTest {
    /**
     * What a bulk user does not have: the testkit and test-only jars, Micrometer, this module's test classes,
     * tcnative's per-platform jars (native code only, one automatic-module name shared by all five) and jsr305.
     */
    private static final Pattern NOT_FOR_BULK_MODULE_PATH = Pattern.compile(
            "ingester-testkit|/com/h2database/|/org/junit/|/org/opentest4j/|/org/apiguardian/|/io/micrometer/|"
                    + "/org/hdrhistogram/|/org/latencyutils/|test-classes|-tests\\.jar|/com/google/code/findbugs/|"
                    + "netty-tcnative-boringssl-static-[^/]*-(linux|osx|windows)");

    private static final String BULK_MODULE_INFO = """
            module sluice.bulkprobe {
                requires dev.sluice.protocol;
            }
            """;

    private static final String BULK_MAIN = """
            package probe;

            import dev.sluice.GreptimeDB;
            import dev.sluice.GreptimeOptions;
            import dev.sluice.bulk.BulkStreamWriter;
            import dev.sluice.bulk.BulkWrite;
            import dev.sluice.data.DataType;
            import dev.sluice.data.TableSchema;
            import dev.sluice.write.Context;
            import java.time.Duration;

            public final class Bulk {
                public static void main(String[] args) {
                    GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(args[0], "public")
                            .build());
                    TableSchema s = TableSchema.newBuilder("modular_bulk").addTag("host", DataType.String)
                            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
                    try (BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().build(),
                            Context.newBuilder().build())) {
                        for (int i = 0; i < 100; i++) {
                            w.tableBufferRoot(128).addRow("h", (double) i, (long) i);
                        }
                        System.out.println("bulk rows " + w.writeNext().join());
                        // About 6 MB: a batch sent from its Arrow memory, its large buffers handed to netty.
                        for (int i = 0; i < 300_000; i++) {
                            w.tableBufferRoot(128).addRow("h", (double) i, 1_000L + i);
                        }
                        System.out.println("large bulk rows " + w.writeNext().join());
                        w.completed();
                    } catch (IllegalStateException e) {
                        System.out.println("bulk refused: " + e.getMessage());
                    }
                    System.out.println("shutdown " + db.shutdownGracefully(Duration.ofSeconds(10)));
                }
            }
            """;

    /**
     * Bulk writes on the module path. Arrow 19 is not fully modular: besides the {@code --add-opens} it needs on
     * the class path too (named for Arrow's module here), its arrow-memory-netty-buffer-patch jar adds classes to
     * Netty's {@code io.netty.buffer} package, so it must be patched into that module, which must then read the
     * modules those classes use; and jsr305 (from grpc-api) and javax.annotation-api (from Flight) both hold
     * {@code javax.annotation}, so one of them (jsr305, annotations only) stays off the module path.
     */
    @Test
    void bulkWritesWorkOnTheModulePathWithArrowsFlagsAndTheRefusalNamesTheModuleFlag(@TempDir Path dir)
            throws Exception {
        List<String> entries = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !NOT_FOR_BULK_MODULE_PATH.matcher(e.replace('\\', '/')).find())
                .collect(Collectors.toList());
        String patch = entries.stream().filter(e -> e.contains("arrow-memory-netty-buffer-patch")).findFirst()
                .orElseThrow(() -> new AssertionError("no arrow-memory-netty-buffer-patch jar in " + entries));
        entries.remove(patch);
        String modulePath = String.join(File.pathSeparator, entries);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests run on a JDK, which has javac");
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("probe"));
        Files.writeString(src.resolve("module-info.java"), BULK_MODULE_INFO);
        Files.writeString(src.resolve("probe/Bulk.java"), BULK_MAIN);
        Path out = dir.resolve("out");
        assertEquals("", compile(javac, modulePath, out, src, "probe/Bulk.java"));

        List<String> flags = List.of("--patch-module", "io.netty.buffer=" + patch,
                "--add-reads", "io.netty.buffer=org.slf4j,org.apache.arrow.memory.core");
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            String refused = run(dir, out + File.pathSeparator + modulePath, flags, "sluice.bulkprobe/probe.Bulk",
                    server.endpoint());
            assertTrue(refused.contains("bulk refused: ")
                    && refused.contains("--add-opens=java.base/java.nio=org.apache.arrow.memory.core"), refused);
            List<String> withOpens = new ArrayList<>(flags);
            withOpens.add("--add-opens=java.base/java.nio=org.apache.arrow.memory.core");
            String said = run(dir, out + File.pathSeparator + modulePath, withOpens, "sluice.bulkprobe/probe.Bulk",
                    server.endpoint());
            assertTrue(said.contains("bulk rows 100"), said);
            assertTrue(said.contains("large bulk rows 300000"), said);
            assertFalse(said.contains("copied into netty's buffers"), "the hand-off works on the module path: " + said);
            assertTrue(said.contains("shutdown true"), said);
            assertEquals(300_100, server.rowCount("modular_bulk"));
        }
    }

    /** Runs a probe module in a child JVM on the module path; returns its output (at most 120 s). */
    private static String run(Path dir, String modulePath, List<String> flags, String main, String endpoint)
            throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(flags);
        cmd.addAll(List.of("--module-path", modulePath, "-m", main, endpoint));
        Path log = Files.createTempFile(dir, "child", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the module-path probe did not finish in 120 s: " + Files.readString(log));
        }
        String said = Files.readString(log);
        assertEquals(0, p.exitValue(), said);
        return said;
    }

    /** Compiles the given source of the probe module; returns javac's diagnostics, empty on success. */
    private static String compile(JavaCompiler javac, String modulePath, Path out, Path src, String... files) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("--class-path", out.toString(), "--module-path", modulePath,
                "-d", out.toString(), src.resolve("module-info.java").toString()));
        for (String f : files) {
            args.add(src.resolve(f).toString());
        }
        // An explicit class path (the empty output directory): in-process javac would otherwise compile against
        // this JVM's class path.
        int rc = javac.run(null, err, err, args.toArray(new String[0]));
        String text = err.toString(StandardCharsets.UTF_8);
        return rc == 0 ? text.trim() : (text.isEmpty() ? "javac failed with " + rc : text);
    }
}
