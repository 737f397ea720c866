package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standard input has no size or modification time to tell one stream from the next: a second import of other rows
 * from it, with the state the first left (the default {@code ./stdin.import-state.json}), writes them or refuses,
 * and never ends with exit 0 having dropped them.
 */
class StandardInputImportedAgainTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static Cli.Run fromStdin(String text, String... args) {
        InputStream old = System.in;
        try {
            System.setIn(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
            return Cli.run(args);
        } finally {
            System.setIn(old);
        }
    }

    @Test
    void aSecondStreamIsWrittenOrRefusedNeverSilentlyDropped() {
        String state = dir.resolve("stdin.import-state.json").toString();
        String[] args = Cli.at(testkit.server(), "--format", "csv", "--table", "piped", "--tags", "id", "--state", state,
                "-");
        Cli.Run day1 = fromStdin("id,v,ts\n1,1.5,1700000000001\n2,2.5,1700000000002\n", args);
        assertEquals(0, day1.code(), day1.toString());
        Cli.Run day2 = fromStdin("id,v,ts\n3,3.5,1700000000003\n4,4.5,1700000000004\n", args);
        List<Long> ids = testkit.server().rows("piped").stream().map(m -> (Long) m.get("id")).sorted().toList();
        assertTrue(ids.equals(List.of(1L, 2L, 3L, 4L)) || day2.code() != 0,
                "second stream: " + day2 + "\nstored ids " + ids);
        assertTrue(day2.code() == 0 || day2.err().contains("--restart"), "a refusal says how to go on: " + day2);
    }
}
