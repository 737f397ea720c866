package dev.sluice.bulk;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Arrow's JVM flag: without it, opening a bulk writer fails with a message that names the flag. */
@SharesJvm
class AddOpensTest {
    static String probe(boolean withFlag) throws Exception {
        return runProbe(AddOpensProbe.class, withFlag);
    }

    /**
     * Runs a probe's main in a JVM of its own, with or without Arrow's flag, and returns what it printed.
     *
     * @param probe the class whose main runs
     * @param withFlag whether the JVM gets {@code --add-opens=java.base/java.nio=ALL-UNNAMED}
     * @return the probe's output and errors
     */
    static String runProbe(Class<?> probe, boolean withFlag) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (withFlag) {
            cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(probe.getName());
        Path out = Files.createTempFile("probe-", ".txt");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertTrue(ended, probe.getSimpleName() + " did not end within 60 s: " + text);
            return text;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    @Test
    void withoutTheFlagTheErrorNamesIt() throws Exception {
        String out = probe(false);
        assertTrue(out.contains("refused:") && out.contains("--add-opens=java.base/java.nio=ALL-UNNAMED"), out);
    }

    @Test
    void withTheFlagArrowStarts() throws Exception {
        String out = probe(true);
        assertEquals("ok", out.lines().filter(l -> l.equals("ok") || l.startsWith("refused")).findFirst().orElse(out));
    }
}
