package dev.sluice.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.SharesJvm;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code prepareBulk()} in a JVM without {@code --add-opens=java.base/java.nio=ALL-UNNAMED}: the documented
 * IllegalStateException naming the flag, on every call (not another error the second time); with the flag, it
 * succeeds.
 */
@SharesJvm
class PrepareBulkWithoutAddOpensTest {
    private static List<String> probe(boolean withFlag) throws Exception {
        return AddOpensTest.runProbe(PrepareBulkAddOpensProbe.class, withFlag).lines()
                .filter(l -> l.equals("ok") || l.startsWith("refused: ") || l.startsWith("other: ")).toList();
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
