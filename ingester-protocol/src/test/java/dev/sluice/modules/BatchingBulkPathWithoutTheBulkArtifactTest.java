package dev.sluice.modules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A batching writer asked for the bulk path ({@code BatchingWriter.Path.Bulk}) by a program that has only
 * {@code ingester-protocol} is told which artifact to add ({@code dev.sluice:ingester-bulk}), when it is opened or
 * through its row's future, and nothing reaches the server.
 */
class BatchingBulkPathWithoutTheBulkArtifactTest {
    private static final Pattern NOT_FOR_PROTOCOL_USERS = Pattern.compile(
            "ingester-bulk|ingester-testkit|/org/apache/arrow/|/io/netty/|tcnative|flatbuffers|/com/fasterxml/|"
                    + "/com/h2database/|/org/junit/|/org/opentest4j/|/org/apiguardian/");

    @Test
    void theBulkPathNamesTheMissingArtifactAndSendsNothing() throws Exception {
        String cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !NOT_FOR_PROTOCOL_USERS.matcher(e.replace('\\', '/')).find())
                .collect(Collectors.joining(File.pathSeparator));
        assertFalse(cp.contains("arrow"), cp);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", cp, BatchingBulkPathWithoutTheBulkArtifactProbe.class.getName(), server.endpoint());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(90, TimeUnit.SECONDS));
            List<String> told = out.lines().filter(l -> l.startsWith("refused: ") || l.startsWith("row failed:"))
                    .toList();
            assertEquals(1, told.size(), out);
            assertTrue(told.get(0).contains("dev.sluice:ingester-bulk"), "names the artifact to add: " + told.get(0));
            assertFalse(out.contains("row stored?!"), out);
            assertEquals(List.of(), server.tables(), "nothing reached the server");
        }
    }
}
