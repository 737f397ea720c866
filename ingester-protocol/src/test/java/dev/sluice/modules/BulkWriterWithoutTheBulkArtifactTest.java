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
 * A user of {@code ingester-protocol} alone who calls {@code db.bulkStreamWriter(...)} (it compiles: the bulk API
 * types are the client's) is told at once which artifact to add, before anything reaches the server; no Arrow
 * class is loaded.
 */
class BulkWriterWithoutTheBulkArtifactTest {
    private static final Pattern NOT_FOR_PROTOCOL_USERS = Pattern.compile(
            "ingester-bulk|ingester-testkit|/org/apache/arrow/|/io/netty/|tcnative|flatbuffers|/com/fasterxml/|"
                    + "/com/h2database/|/org/junit/|/org/opentest4j/|/org/apiguardian/");

    @Test
    void bulkStreamWriterNamesTheMissingArtifactAndSendsNothing() throws Exception {
        String cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !NOT_FOR_PROTOCOL_USERS.matcher(e.replace('\\', '/')).find())
                .collect(Collectors.joining(File.pathSeparator));
        assertFalse(cp.contains("arrow"), cp);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xlog:class+load=info", "-cp", cp, BulkWriterWithoutTheBulkArtifactProbe.class.getName(),
                    server.endpoint());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String said = out.lines().filter(l -> !l.contains("class,load")).collect(Collectors.joining("\n"));
            List<String> refusals = said.lines().filter(l -> l.startsWith("bulk refused: ")).toList();
            assertEquals(2, refusals.size(), said);
            for (String r : refusals) {
                assertTrue(r.contains("dev.sluice:ingester-bulk"), r);
            }
            assertFalse(said.contains("opened?!"), said);
            assertTrue(said.contains("shutdown true"), said);
            assertFalse(out.contains("org.apache.arrow"), "an Arrow class was loaded");
            assertEquals(List.of(), server.tables(), "nothing reached the server (no CREATE TABLE)");
        }
    }
}
