package dev.sluice.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.SharesJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code prepareBulk()} in a JVM without {@code --add-opens=java.base/java.nio=ALL-UNNAMED}: the documented
 * IllegalStateException naming the flag, on every call (not another error the second time); with the flag, it
 * succeeds.
 */
@SharesJvm
class PrepareBulkWithoutAddOpensTest {
    private static List<String> probe(boolean withFlag) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (withFlag) {
            cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(PrepareBulkAddOpensProbe.class.getName());
        Path out = Files.createTempFile("prepare-probe", ".txt");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertTrue(ended, "probe did not end: " + text);
            return text.lines().filter(l -> l.equals("ok") || l.startsWith("refused: ") || l.startsWith("other: "))
                    .toList();
        } finally {
            Files.deleteIfExists(out);
        }
    }

    @Test
    void withoutTheFlagEveryPrepareIsRefusedNamingTheFlag() throws Exception {
        List<String> lines = probe(false);
        assertEquals(2, lines.size(), String.valueOf(lines));
        for (String l : lines) {
            assertTrue(l.startsWith("refused: ") && l.contains("--add-opens=java.base/java.nio=ALL-UNNAMED"), l);
        }
    }

    @Test
    void withTheFlagPrepareSucceedsTwice() throws Exception {
        assertEquals(List.of("ok", "ok"), probe(true));
    }
}
