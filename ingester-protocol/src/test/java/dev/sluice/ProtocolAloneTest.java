package dev.sluice;

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
 * A user who depends on {@code ingester-protocol} alone (ingester-bulk is an optional dependency) writes on the
 * regular, stream and batching paths with no Arrow, no unshaded Netty and no tcnative jar on the classpath, and
 * asking for a bulk writer says which artifact to add. Checked in a child JVM whose classpath is this test's
 * minus those jars (and minus the testkit, which runs here).
 */
class ProtocolAloneTest {
    /** Jars a user of ingester-protocol alone does not get. */
    static final Pattern NOT_FOR_PROTOCOL_USERS = Pattern.compile(
            "ingester-bulk|ingester-testkit|/org/apache/arrow/|/io/netty/|tcnative|flatbuffers|/com/fasterxml/|"
                    + "/com/h2database/|/org/junit/|/org/opentest4j/|/org/apiguardian/");

    @Test
    void regularStreamAndBatchingWritesNeedNoBulkArtifactAndBulkNamesIt() throws Exception {
        String cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !NOT_FOR_PROTOCOL_USERS.matcher(e.replace('\\', '/')).find())
                .collect(Collectors.joining(File.pathSeparator));
        assertFalse(cp.contains("arrow"), cp);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xlog:class+load=info", "-cp", cp, ProtocolOnlyProbe.class.getName(), server.endpoint());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String said = out.lines().filter(l -> !l.contains("class,load")).collect(Collectors.joining("\n"));
            assertTrue(said.contains("regular ok"), said);
            assertTrue(said.contains("stream ok 1"), said);
            assertTrue(said.contains("batching ok"), said);
            assertTrue(said.contains("bulk batching refused: bulk writes need the dev.sluice:ingester-bulk"), said);
            assertTrue(said.contains("bulk bytes 0"), said);
            assertTrue(said.contains("shutdown true"), said);
            assertFalse(out.contains("org.apache.arrow"), "an Arrow class was loaded");
            assertEquals(3, server.rowCount("alone"));
        }
    }
}
