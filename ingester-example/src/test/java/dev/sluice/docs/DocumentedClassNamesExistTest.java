package dev.sluice.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every fully qualified Sluice class the user documentation names (the main class of a {@code java -cp ...}
 * command above all: a reader pastes it) is a class of this repository, so each printed command can be run as
 * written.
 */
class DocumentedClassNamesExistTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern CLASS = Pattern.compile("\\bdev\\.sluice(?:\\.[a-z0-9]+)*\\.[A-Z][A-Za-z0-9]*");

    private static boolean exists(String className) throws IOException {
        String file = className.replace('.', '/') + ".java";
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path m : modules.filter(Files::isDirectory).toList()) {
                for (String src : List.of("src/main/java", "src/test/java", "src/bench/java")) {
                    if (Files.exists(m.resolve(src).resolve(file))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Test
    void everyDocumentedSluiceClassExists() throws IOException {
        List<String> docs = new ArrayList<>(List.of("README.md", "docs/guide.md", "compare/README.md"));
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.filter(m -> Files.exists(m.resolve("README.md")) && m.getFileName().toString().startsWith("ingester-"))
                    .forEach(m -> docs.add(m.getFileName() + "/README.md"));
        }
        TreeSet<String> missing = new TreeSet<>();
        for (String doc : docs) {
            List<String> lines = Files.readAllLines(ROOT.resolve(doc), StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = CLASS.matcher(lines.get(i));
                while (m.find()) {
                    if (!exists(m.group())) {
                        missing.add(doc + ":" + (i + 1) + ": " + m.group());
                    }
                }
            }
        }
        assertEquals(List.of(), List.copyOf(missing), "classes named by the docs that do not exist");
    }
}
