package dev.sluice.lifecycle;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A program that ends (main returns, or System.exit) with a batching writer open, on the regular or the bulk path,
 * has its rows flushed at exit with a warning, not lost.
 */
@SharesJvm
class BatchingWriterLeftOpenOnEitherPathTest {
    private static GreptimeTestServer server;

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @ParameterizedTest
    @CsvSource({"Bulk, return", "Bulk, exit", "Regular, exit"})
    void rowsAreFlushedAtExit(String path, String ending) throws Exception {
        String table = ("left_open_" + path + "_" + ending).toLowerCase();
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
                cmd.add(arg);
            }
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ProgramLeavingAWriterOpen.class.getName(),
                server.endpoint(), table, "40", path, ending));
        File err = File.createTempFile("program-", ".err");
        err.deleteOnExit();
        Process p = new ProcessBuilder(cmd).redirectError(err).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the program ended");
        } finally {
            p.destroyForcibly();
        }
        String log = Files.readString(err.toPath(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), log);
        assertEquals(40, server.tables().contains(table) ? server.rowCount(table) : 0, log);
        assertTrue(log.contains("the JVM is exiting with 1 batching writer(s)"), log);
    }
}
