package dev.sluice.importer.lineprotocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The column options {@code --skip}, {@code --rename} and {@code --types} mean for line protocol what they mean for
 * every other format (a field not imported, renamed, typed), or the import refuses them as a usage error (exit 2,
 * naming the option) before anything is written: never accepted and ignored without a word.
 */
class ColumnOptionsShapeLineProtocolTablesOrAreRefusedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private Cli.Run run(String table, String... option) throws Exception {
        Path f = dir.resolve(table + ".lp");
        Files.writeString(f, table + ",host=a v=1,w=2 1\n");
        List<String> args = new java.util.ArrayList<>(List.of("--state", dir.resolve(table + ".state").toString()));
        args.addAll(List.of(option));
        args.add(f.toString());
        return Cli.run(Cli.at(testkit.server(), args.toArray(new String[0])));
    }

    private void assertRefused(Cli.Run r, String table, String option) {
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains(option), "the refusal names " + option + ": " + r);
        assertTrue(!testkit.server().tables().contains(table), "nothing was created");
    }

    @Test
    void aSkippedFieldIsNotStored() throws Exception {
        Cli.Run r = run("lp_skip", "--skip", "w");
        if (r.code() == 2) {
            assertRefused(r, "lp_skip", "--skip");
            return;
        }
        List<Map<String, Object>> rows = testkit.server().rows("lp_skip");
        assertEquals(1, rows.size(), r.toString());
        assertTrue(!rows.get(0).containsKey("w") || rows.get(0).get("w") == null,
                "--skip w was accepted, and w is stored: " + rows + "\n" + r);
    }

    @Test
    void aRenamedFieldIsStoredUnderItsNewName() throws Exception {
        Cli.Run r = run("lp_rename", "--rename", "v=value");
        if (r.code() == 2) {
            assertRefused(r, "lp_rename", "--rename");
            return;
        }
        List<Map<String, Object>> rows = testkit.server().rows("lp_rename");
        assertEquals(1, rows.size(), r.toString());
        assertEquals(1.0, rows.get(0).get("value"), "--rename v=value was accepted: " + rows + "\n" + r);
    }

    @Test
    void aTypedFieldGetsItsType() throws Exception {
        Cli.Run r = run("lp_types", "--types", "v:Int64");
        if (r.code() == 2) {
            assertRefused(r, "lp_types", "--types");
            return;
        }
        List<Map<String, Object>> rows = testkit.server().rows("lp_types");
        assertEquals(1, rows.size(), r.toString());
        assertEquals(1L, rows.get(0).get("v"), "--types v:Int64 was accepted: " + rows + "\n" + r);
    }
}
