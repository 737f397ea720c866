package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A CSV delimiter, quote, comment or escape character that is another of them cannot be read unambiguously: a
 * usage error (exit 2) naming the options, before anything is created, with no Java stack trace; with --escape
 * too, where the import's own reader is used.
 */
class ClashingCsvControlCharactersAreUsageErrorsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"--quote=,", "--comment=,", "--comment=\"", "--delimiter=\"", "--escape=,",
            "--quote=, --escape=\\", "--comment=# --delimiter=#"})
    void refused(String options) throws Exception {
        Path f = dir.resolve("clash.csv");
        Files.writeString(f, "id,ts,v\n1,1700000000001,1\n2,1700000000002,2\n");
        List<String> a = new ArrayList<>(List.of("-q", "--tags", "id"));
        a.addAll(Arrays.asList(options.split(" ")));
        a.add(f.toString());
        Cli.Run r;
        try {
            r = Cli.run(Cli.at(testkit.server(), a.toArray(new String[0])));
        } catch (RuntimeException e) {
            throw new AssertionError(options + " escaped as an exception", e);
        }
        assertEquals(2, r.code(), options + ": " + r);
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "a stack trace: " + r.err());
        String first = options.split(" ")[0];
        assertTrue(r.err().contains(first.substring(0, first.indexOf('='))), "the option is not named: " + r.err());
        assertFalse(testkit.server().tables().contains("clash"), "created before refusing");
    }
}
