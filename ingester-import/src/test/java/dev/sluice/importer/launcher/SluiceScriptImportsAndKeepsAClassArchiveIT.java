package dev.sluice.importer.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code sluice} script the build puts beside {@code sluice-import.jar}, run as users run it: {@code sluice import}
 * stores the rows, its first successful import leaves a class-data sharing archive that later imports use, and a
 * command it does not know or a missing Java is a clear error.
 */
@Timeout(600)
class SluiceScriptImportsAndKeepsAClassArchiveIT {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    static Path script;

    @TempDir
    Path dir;

    /** What one run of the script gave. */
    record Run(int code, String output) {
    }

    @BeforeAll
    static void theBuildsScript() {
        String given = System.getProperty("sluice.script");
        // Failsafe names the script (copied by package); a run of this class outside the integration-test phase has none.
        Assumptions.assumeTrue(given != null, "runs after package (mvn verify, failsafe), which names the script in"
                + " -Dsluice.script");
        script = Path.of(given);
        assertTrue(Files.isExecutable(script), "the build leaves an executable script: " + script);
    }

    private Run sluice(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(script.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("SLUICE_CACHE_DIR", dir.resolve("cache").toString());
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "out", ".txt");
        Process p = pb.redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the script did not end");
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    private Path tenRows(String name) throws IOException {
        StringBuilder csv = new StringBuilder("ts,host,cpu\n");
        for (int i = 0; i < 10; i++) {
            csv.append(1_700_000_000_000L + i).append(",h").append(i).append(',').append(i + 0.5).append('\n');
        }
        Path f = dir.resolve(name + ".csv");
        Files.writeString(f, csv);
        return f;
    }

    private Map<String, Double> stored(String table) {
        Map<String, Double> byHost = new TreeMap<>();
        testkit.server().rows(table).forEach(r -> byHost.put((String) r.get("host"), ((Number) r.get("cpu")).doubleValue()));
        return byHost;
    }

    private List<Path> archives() throws IOException {
        Path cache = dir.resolve("cache");
        if (!Files.isDirectory(cache)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(cache)) {
            return s.toList();
        }
    }

    @Test
    void importStoresTheRowsAndTheFirstImportLeavesAnArchiveTheNextUses() throws Exception {
        Map<String, Double> expected = new TreeMap<>();
        for (int i = 0; i < 10; i++) {
            expected.put("h" + i, i + 0.5);
        }
        Run first = sluice(Map.of(), "import", "-e", testkit.server().endpoint(), "--http-endpoint",
                testkit.server().httpEndpoint(), "--tags", "host", "--quiet", tenRows("first").toString());
        assertEquals(0, first.code(), first.output());
        assertEquals("", first.output(), "the first run, which writes the archive, prints nothing of it");
        assertEquals(expected, stored("first"));
        List<Path> archives = archives();
        assertEquals(1, archives.size(), "one archive, no leftovers: " + archives);
        assertTrue(archives.get(0).getFileName().toString().endsWith(".jsa"), archives.toString());

        Run second = sluice(Map.of("JAVA_OPTS", "-Xlog:class+load=info:file=" + dir.resolve("classes.txt")), "import",
                "-e", testkit.server().endpoint(), "--http-endpoint", testkit.server().httpEndpoint(), "--tags", "host",
                "--quiet", tenRows("second").toString());
        assertEquals(0, second.code(), second.output());
        assertEquals(expected, stored("second"));
        String loaded = Files.readString(dir.resolve("classes.txt"));
        assertTrue(loaded.contains("dev.sluice.importer.ImportCommand source: shared objects file"),
                "the second run maps the import's classes from the archive");
        // picocli's classes are of class file version 49, which an archive written at a JVM's exit refuses.
        assertTrue(loaded.contains("picocli.CommandLine source: shared objects file"),
                "the second run maps the option parser's classes from the archive too");
        assertEquals(archives, archives(), "the archive is kept as it is");
    }

    @Test
    void aDamagedArchiveIsPassedOverSilently() throws Exception {
        Run first = sluice(Map.of(), "import", "-e", testkit.server().endpoint(), "--http-endpoint",
                testkit.server().httpEndpoint(), "--quiet", tenRows("before").toString());
        assertEquals(0, first.code(), first.output());
        Path archive = archives().get(0);
        archive.toFile().setWritable(true);
        Files.write(archive, "not an archive".getBytes(StandardCharsets.UTF_8));

        Run after = sluice(Map.of(), "import", "-e", testkit.server().endpoint(), "--http-endpoint",
                testkit.server().httpEndpoint(), "--quiet", tenRows("after").toString());
        assertEquals(0, after.code(), after.output());
        assertEquals("", after.output());
        assertEquals(10, testkit.server().rowCount("after"));
    }

    @Test
    void anUnknownCommandIsAUsageErrorNamingIt() throws Exception {
        Run r = sluice(Map.of(), "imprt", "data.csv");
        assertEquals(2, r.code(), r.output());
        assertTrue(r.output().contains("unknown command 'imprt'"), r.output());
        assertTrue(r.output().contains("usage: sluice import"), r.output());
        Run none = sluice(Map.of());
        assertEquals(2, none.code(), none.output());
        assertTrue(none.output().contains("usage: sluice import"), none.output());
    }

    @Test
    void theImportsOwnHelpIsPrintedAndLeavesNoArchive() throws Exception {
        Run r = sluice(Map.of(), "import", "--help");
        assertEquals(0, r.code(), r.output());
        assertTrue(r.output().contains("--tags"), r.output());
        assertEquals(List.of(), archives());
    }

    @Test
    void aJavaHomeWithoutJavaSaysWhatToSet() throws Exception {
        Run r = sluice(Map.of("JAVA_HOME", dir.resolve("no-jdk").toString()), "import", "data.csv");
        assertEquals(3, r.code(), r.output());
        assertTrue(r.output().contains("JAVA_HOME is " + dir.resolve("no-jdk")), r.output());
        assertTrue(r.output().contains("Java 17 or later"), r.output());
    }
}
