package dev.sluice.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.testkit.GreptimeTestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The user's guide's bulk example, exactly as printed in docs/guide.md, compiles with the imports it shows and,
 * given a client, stores every row it writes.
 */
class GuideBulkExampleTest {
    private static final Path GUIDE = Path.of("..", "docs", "guide.md");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)\n```", Pattern.DOTALL);

    @Test
    void guideBulkExampleCompilesAndStoresEveryRow(@TempDir Path dir) throws Exception {
        String block = bulkBlock();
        List<String> imports = new ArrayList<>();
        StringBuilder body = new StringBuilder();
        for (String line : block.split("\n")) {
            if (line.startsWith("import ")) {
                imports.add(line);
            } else {
                body.append("        ").append(line).append('\n');
            }
        }
        String source = "package guide;\n\n" + String.join("\n", imports) + "\n\n"
                + "public final class BulkExample {\n"
                + "    public static void run(GreptimeDB db) throws Exception {\n" + body + "    }\n}\n";
        Path src = dir.resolve("guide/BulkExample.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, source);
        Path out = Files.createDirectories(dir.resolve("out"));

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests run on a JDK, which has javac");
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = javac.run(null, null, new PrintStream(diagnostics, true, StandardCharsets.UTF_8),
                "-d", out.toString(), "-cp", System.getProperty("java.class.path"), src.toString());
        assertEquals(0, status, "the guide's bulk example does not compile as printed:\n"
                + diagnostics.toString(StandardCharsets.UTF_8) + "\n" + source);

        try (GreptimeTestServer server = GreptimeTestServer.start();
                URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()},
                        GuideBulkExampleTest.class.getClassLoader())) {
            GreptimeDB db = GreptimeDB.create(
                    GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                Method run = loader.loadClass("guide.BulkExample").getMethod("run", GreptimeDB.class);
                run.invoke(null, db);
            } finally {
                db.shutdownGracefully();
            }

            assertEquals(100_000, server.rowCount("app_logs"));
            Map<String, Object> first = server.rows("app_logs").stream()
                    .filter(r -> "request 0 served".equals(r.get("message"))).findFirst().orElseThrow();
            assertEquals("node-0", first.get("host"));
            assertEquals("WARN", first.get("level"));
        }
    }

    /** The one Java block of the guide that opens a bulk writer. */
    private static String bulkBlock() throws IOException {
        Matcher m = JAVA_BLOCK.matcher(Files.readString(GUIDE, StandardCharsets.UTF_8));
        List<String> found = new ArrayList<>();
        while (m.find()) {
            if (m.group(1).contains("db.bulkStreamWriter(")) {
                found.add(m.group(1));
            }
        }
        assertEquals(1, found.size(), "docs/guide.md has one Java block that opens a bulk writer");
        assertTrue(found.get(0).contains("import dev.sluice.bulk.BulkStreamWriter;"), "it shows its imports");
        return found.get(0);
    }
}
