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
 * The module descriptors hold on the module path, where the rest of the suite (on the class path) cannot see
 * them: a small application module that {@code requires dev.sluice.protocol} is compiled against, and run on, the
 * module path of a user of ingester-protocol alone (no bulk module, no Arrow, no Micrometer). It writes rows to
 * the testkit through the exported API (a table and annotated records of a package it opens to the client), and
 * its attempts to use an {@code internal} package, at compile time and
 * reflectively at run time, are refused.
 */
class ModulePathTest {
    /**
     * What a user of ingester-protocol alone does not have: the jars ProtocolAloneTest removes, the rest of what
     * ingester-bulk brings (Flight's unshaded grpc-netty, javax.annotation-api, protobuf-java-util, Apache
     * Commons), Micrometer (optional too) and this module's test classes.
     */
    private static final Pattern NOT_ON_MODULE_PATH = Pattern.compile(
            ProtocolAloneTest.NOT_FOR_PROTOCOL_USERS.pattern() + "|/io/grpc/grpc-netty/|/javax/annotation/|"
                    + "/protobuf-java-util/|/commons-codec/|/commons-io/|/org/apache/commons/|/io/micrometer/|"
                    + "/org/hdrhistogram/|/org/latencyutils/|test-classes");

    /**
     * What a bulk user does not have: the testkit and test-only jars, Micrometer, this module's test classes,
     * tcnative's per-platform jars (native code only, one automatic-module name shared by all five) and jsr305.
     */
    private static final Pattern NOT_FOR_BULK_MODULE_PATH = Pattern.compile(
            "ingester-testkit|/com/h2database/|/org/junit/|/org/opentest4j/|/org/apiguardian/|/io/micrometer/|"
                    + "/org/hdrhistogram/|/org/latencyutils/|test-classes|/com/google/code/findbugs/|"
                    + "netty-tcnative-boringssl-static-[^/]*-(linux|osx|windows)");

    private static final String MODULE_INFO = """
            module sluice.probe {
                requires dev.sluice.protocol;
                // writeObjects reads the record's components: the package is opened to the mapping module
                opens probe.model to dev.sluice.common;
            }
            """;

    private static final String MAIN = """
            package probe;

            import dev.sluice.BatchingWriter;
            import dev.sluice.GreptimeDB;
            import dev.sluice.GreptimeOptions;
            import dev.sluice.data.DataType;
            import dev.sluice.data.Table;
            import dev.sluice.data.TableSchema;
            import dev.sluice.metrics.MetricsSink;
            import dev.sluice.write.Result;
            import java.lang.reflect.InaccessibleObjectException;
            import java.time.Duration;
            import java.util.TreeSet;
            import java.util.concurrent.TimeUnit;
            import java.util.concurrent.atomic.AtomicLong;

            public final class Main {
                public static void main(String[] args) throws Exception {
                    for (Class<?> c : new Class<?>[] {GreptimeDB.class, Table.class}) {
                        Module m = c.getModule();
                        System.out.println("module " + m.getName() + " automatic=" + m.getDescriptor().isAutomatic());
                        for (String p : new TreeSet<>(m.getPackages())) {
                            System.out.println("package " + p + " exported=" + m.isExported(p));
                        }
                    }
                    System.out.println("micrometer present="
                            + ModuleLayer.boot().findModule("micrometer.core").isPresent());
                    System.out.println("bulk present=" + ModuleLayer.boot().findModule("dev.sluice.bulk").isPresent());

                    AtomicLong acknowledged = new AtomicLong();
                    MetricsSink sink = new MetricsSink() {
                        @Override
                        public void rows(String path, String table, long rows) {
                            acknowledged.addAndGet(rows);
                        }
                    };
                    GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(args[0], "public")
                            .metrics(sink).build());
                    TableSchema schema = TableSchema.newBuilder("modular").addTag("host", DataType.String)
                            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
                    Table t = Table.from(schema).addRow("a", 1.0, 1L).addRow("b", 2.0, 2L).addRow("c", 3.0, 3L);
                    Result<?, ?> r = db.write(t).get(60, TimeUnit.SECONDS);
                    System.out.println("write ok=" + r.isOk() + " acknowledged=" + acknowledged.get());
                    Result<?, ?> objects = db.writeObjects(java.util.List.of(new probe.model.Reading("d", 4.0, 4L),
                            new probe.model.Reading("e", 5.0, 5L))).get(60, TimeUnit.SECONDS);
                    System.out.println("objects ok=" + objects.isOk() + " " + objects);

                    // A public class of an internal package: loadable, but its members are out of reach.
                    Class<?> wire = Class.forName("dev.sluice.internal.wire.GreptimeRequest");
                    try {
                        wire.getMethod("getDefaultInstance").invoke(null);
                        System.out.println("internal wire reachable");
                    } catch (IllegalAccessException e) {
                        System.out.println("internal wire denied: " + e.getMessage());
                    }
                    Class<?> writer = Class.forName("dev.sluice.internal.write.RegularWriter");
                    try {
                        writer.getDeclaredConstructors()[0].setAccessible(true);
                        System.out.println("internal writer opened");
                    } catch (InaccessibleObjectException e) {
                        System.out.println("internal writer denied: " + e.getMessage());
                    }
                    try {
                        db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk).build());
                        System.out.println("bulk opened");
                    } catch (IllegalStateException e) {
                        System.out.println("bulk refused: " + e.getMessage());
                    }
                    System.out.println("shutdown " + db.shutdownGracefully(Duration.ofSeconds(10)));
                }
            }
            """;

    private static final String READING = """
            package probe.model;

            import dev.sluice.mapping.Field;
            import dev.sluice.mapping.Tag;
            import dev.sluice.mapping.Timestamp;

            @dev.sluice.mapping.Table("modular_objects")
            public record Reading(@Tag String host, @Field double v,
                                  @Timestamp(type = dev.sluice.data.DataType.TimestampMillisecond) long ts) {
            }
            """;

    private static final String USES_INTERNAL = """
            package probe;

            final class UsesInternal {
                Object request = dev.sluice.internal.wire.GreptimeRequest.getDefaultInstance();
            }
            """;

    @Test
    void anApplicationModuleWritesThroughTheExportedApiAndCannotReachInternalPackages(@TempDir Path dir)
            throws Exception {
        List<String> entries = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !NOT_ON_MODULE_PATH.matcher(e.replace('\\', '/')).find())
                .collect(Collectors.toList());
        assertTrue(entries.stream().anyMatch(e -> Files.exists(Path.of(e).resolve("module-info.class"))
                || e.contains("ingester-protocol")), entries.toString());
        String modulePath = String.join(File.pathSeparator, entries);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests run on a JDK, which has javac");
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("probe"));
        Files.writeString(src.resolve("module-info.java"), MODULE_INFO);
        Files.writeString(src.resolve("probe/Main.java"), MAIN);
        Files.createDirectories(src.resolve("probe/model"));
        Files.writeString(src.resolve("probe/model/Reading.java"), READING);
        Path out = dir.resolve("out");

        // Compile time: naming a class of an internal package fails, because the package is not exported.
        Files.writeString(src.resolve("probe/UsesInternal.java"), USES_INTERNAL);
        String refused = compile(javac, modulePath, out, src, "probe/UsesInternal.java", "probe/model/Reading.java");
        assertTrue(refused.contains("package dev.sluice.internal.wire is declared in module dev.sluice.common, which "
                + "does not export it"), refused);
        Files.delete(src.resolve("probe/UsesInternal.java"));
        assertEquals("", compile(javac, modulePath, out, src, "probe/Main.java", "probe/model/Reading.java"));

        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            String said = run(dir, out + File.pathSeparator + modulePath, List.of(), "sluice.probe/probe.Main",
                    server.endpoint());

            assertTrue(said.contains("module dev.sluice.protocol automatic=false"), said);
            assertTrue(said.contains("module dev.sluice.common automatic=false"), said);
            List<String> exported = new ArrayList<>();
            List<String> internal = new ArrayList<>();
            for (String line : said.lines().filter(l -> l.startsWith("package ")).toList()) {
                String pkg = line.substring("package ".length(), line.indexOf(' ', "package ".length()));
                if (pkg.contains(".internal")) {
                    internal.add(line);
                } else if (line.endsWith("exported=true")) {
                    exported.add(pkg);
                }
            }
            assertEquals(List.of("dev.sluice", "dev.sluice.metrics", "dev.sluice.data", "dev.sluice.mapping",
                    "dev.sluice.write"), exported, said);
            assertTrue(internal.size() >= 10, said);
            assertTrue(internal.stream().allMatch(l -> l.endsWith("exported=false")), said);

            assertTrue(said.contains("micrometer present=false"), said);
            assertTrue(said.contains("bulk present=false"), said);
            assertTrue(said.contains("write ok=true acknowledged=3"), said);
            assertEquals(3, server.rowCount("modular"));
            assertTrue(said.contains("objects ok=true"), said);
            assertEquals(2, server.rowCount("modular_objects"));
            assertTrue(said.contains("internal wire denied: ") && said.contains(
                    "module dev.sluice.common does not export dev.sluice.internal.wire to module sluice.probe"), said);
            assertTrue(said.contains("internal writer denied: ") && said.contains(
                    "module dev.sluice.protocol does not \"exports dev.sluice.internal.write\" to module sluice.probe"), said);
            assertTrue(said.contains("bulk refused: bulk writes need the dev.sluice:ingester-bulk"), said);
            assertTrue(said.contains("shutdown true"), said);
            assertFalse(said.contains("reachable") || said.contains("opened"), said);
        }
    }

    private static final String BULK_MODULE_INFO = """
            module sluice.bulkprobe {
                requires dev.sluice.protocol;
                requires dev.sluice.bulk;
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
