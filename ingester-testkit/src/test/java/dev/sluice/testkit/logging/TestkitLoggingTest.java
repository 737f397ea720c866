package dev.sluice.testkit.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the testkit prints in a user's JVM with an SLF4J binding at INFO (slf4j-simple here): nothing from Arrow
 * while only the regular gRPC path is used.
 */
@org.junit.jupiter.api.Timeout(300)
class TestkitLoggingTest {
    static String run(String mode) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                RegularWriteProgram.class.getName(), mode));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
            assertEquals(0, p.exitValue(), out);
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aRegularWriteLogsNothingFromArrow() throws Exception {
        String out = run("regular");
        assertTrue(out.contains("stored=1"), out);
        assertTrue(out.lines().noneMatch(l -> l.contains("org.apache.arrow")), out);
    }

    @Test
    void arrowsInfoLinesWouldShowInThisJvm() throws Exception {
        // The control for the test above: the child's SLF4J binding prints Arrow's INFO lines when Arrow starts.
        String out = run("arrow");
        assertTrue(out.lines().anyMatch(l -> l.contains("INFO org.apache.arrow")), out);
    }
}
