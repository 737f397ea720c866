package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module README's "Options" block is what {@code --help} prints today, word for word. */
class ReadmeShowsTheHelpTest {
    @Test
    void theOptionsBlockIsTheCurrentHelp() throws Exception {
        Cli.Run help = Cli.run("--help");
        assertEquals(0, help.code(), help.toString());
        String readme = Files.readString(Path.of("README.md"));
        int start = readme.indexOf("## Options\n\n```\n");
        assertTrue(start >= 0, "README.md has an Options section with a code block");
        start += "## Options\n\n```\n".length();
        String block = readme.substring(start, readme.indexOf("```\n", start));
        assertEquals(help.out(), block, "paste the output of `java -jar target/sluice-import.jar --help` into README.md");
    }
}
