package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client that never opens a bulk writer never loads an Arrow class, so regular writes need no
 * {@code --add-opens}: checked in a child JVM started without the flag, with class loading logged.
 */
class NoArrowForRegularWritesTest {
    @Test
    void regularWritesWorkWithoutTheArrowFlagAndLoadNoArrowClass() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xlog:class+load=info", "-cp", System.getProperty("java.class.path"),
                    RegularOnlyProbe.class.getName(), server.endpoint());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertTrue(out.contains("write ok"), out.lines().filter(l -> !l.contains("class,load")).toList().toString());
            assertFalse(out.contains("org.apache.arrow"), "an Arrow class was loaded: " + out.lines()
                    .filter(l -> l.contains("org.apache.arrow")).findFirst().orElse(""));
            assertTrue(server.rowCount("probe") == 1);
        }
    }
}
