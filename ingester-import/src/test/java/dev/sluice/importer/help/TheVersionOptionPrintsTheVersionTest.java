package dev.sluice.importer.help;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import org.junit.jupiter.api.Test;

/**
 * {@code --version} (and {@code -V}), which the help lists as "Print version information and exit", prints the
 * import's version and exits 0: a user reporting a problem can say which build they ran.
 */
class TheVersionOptionPrintsTheVersionTest {
    @Test
    void versionAndItsShortFormPrintAVersion() {
        for (String option : new String[] {"--version", "-V"}) {
            Cli.Run r = Cli.run(option);
            assertEquals(0, r.code(), r.toString());
            assertTrue(r.out().matches("(?s).*\\d+\\.\\d+.*"), option + " printed no version: '" + r.out() + "'");
        }
    }
}
