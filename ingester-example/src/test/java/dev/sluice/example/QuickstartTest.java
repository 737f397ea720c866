package dev.sluice.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The README's quickstart is {@link Quickstart} as it stands, compiled by this module, and it stores its rows: the
 * printed code cannot drift from code that compiles and runs.
 */
class QuickstartTest {
    private static final Path README = Path.of("..", "README.md");
    private static final Path SOURCE = Path.of("src", "main", "java", "dev", "sluice", "example", "Quickstart.java");

    @Test
    void readmeQuickstartIsTheCompiledQuickstartClass() throws IOException {
        String source = Files.readString(SOURCE, StandardCharsets.UTF_8);
        String withoutPackage = source.substring(source.indexOf('\n', source.indexOf("package ")) + 1).strip();
        assertEquals(withoutPackage, readmeQuickstart(),
                "README.md's Quickstart block must be Quickstart.java without its package line");
    }

    @Test
    void quickstartStoresItsTwoRowsOnTheTestkit() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            Quickstart.main(new String[] {server.endpoint()});

            Map<String, Object> usageByHost = new TreeMap<>();
            server.rows("cpu").forEach(row -> usageByHost.put((String) row.get("host"), row.get("usage")));
            assertEquals(Map.of("web-1", 0.42, "web-2", 0.17), usageByHost);
            assertEquals(3, server.schema("cpu").columns().size(), "host, usage and ts");
        }
    }

    /** The first fenced Java block after the README's "## Quickstart" heading. */
    private static String readmeQuickstart() throws IOException {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        int section = readme.indexOf("\n## Quickstart");
        assertTrue(section >= 0, "README.md has a '## Quickstart' section");
        int open = readme.indexOf("```java\n", section);
        assertTrue(open >= 0, "the Quickstart section has a ```java block");
        int start = open + "```java\n".length();
        int end = readme.indexOf("\n```", start);
        return readme.substring(start, end).strip();
    }
}
