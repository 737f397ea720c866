package dev.sluice.bulk;

import dev.sluice.SharesJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Arrow's JVM flag: without it, opening a bulk writer fails with a message that names the flag. */
@SharesJvm
class AddOpensTest {
    static String probe(boolean withFlag) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (withFlag) {
            cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(AddOpensProbe.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return out;
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
