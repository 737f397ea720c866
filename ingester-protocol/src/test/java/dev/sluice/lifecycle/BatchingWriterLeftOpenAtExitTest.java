package dev.sluice.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rows a program leaves in a batching writer when it ends are flushed by the client's exit hook, with a warning,
 * rather than lost with the JVM.
 */
class BatchingWriterLeftOpenAtExitTest {
    private static GreptimeTestServer server;

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** Runs the program in a JVM of its own; returns its standard error. */
    private static String run(String table, int rows, String ending) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
                cmd.add(arg);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ProgramEndingWithOpenBatchingWriter.class.getName());
        cmd.addAll(List.of(server.endpoint(), table, Integer.toString(rows), ending));
        File err = File.createTempFile("program-", ".err");
        err.deleteOnExit();
        Process p = new ProcessBuilder(cmd).redirectError(err).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the program ended");
        } finally {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue());
        return java.nio.file.Files.readString(err.toPath(), StandardCharsets.UTF_8);
    }

    @Test
    void rowsOfAWriterLeftOpenAreFlushedAtExitWithAWarning() throws Exception {
        String log = run("left_open", 25, "open");
        assertEquals(25, server.rowCount("left_open"), log);
        assertTrue(log.contains("WARN dev.sluice.GreptimeDB - the JVM is exiting with 1 batching writer(s)"), log);
        assertTrue(log.contains("holding 25 rows"), log);
        assertTrue(log.contains("Close batching writers, then the client, before the program ends"), log);
    }

    @Test
    void aProgramThatClosesItsWriterGetsNoExitWarning() throws Exception {
        String log = run("closed_first", 7, "closed");
        assertEquals(7, server.rowCount("closed_first"), log);
        assertFalse(log.contains("the JVM is exiting"), log);
    }
}
