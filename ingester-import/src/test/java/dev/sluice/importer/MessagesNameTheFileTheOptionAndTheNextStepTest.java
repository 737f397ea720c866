package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Messages a user acts on: a row the dry run would reject names its file as a real run does; a column an option
 * names that the input lacks names the option; an import stopped by --max-errors says how to go on.
 */
class MessagesNameTheFileTheOptionAndTheNextStepTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    private static final String BAD = "id,ts,v\n1,1700000000001,1\n2,1700000000002,x\n3,1700000000003,3\n";

    @Test
    void aDryRunsRejectedRowNamesItsFile() throws Exception {
        Path f = dir.resolve("dryreject.csv");
        Files.writeString(f, BAD);
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--dry-run", "--tags", "id", "--types", "v:Int64", f.toString()));
        String all = r.out() + r.err();
        assertTrue(all.contains("line 3"), all);
        int at = all.indexOf("line 3");
        String lineOfIt = all.substring(all.lastIndexOf('\n', at) + 1, all.indexOf('\n', at) < 0 ? all.length() : all.indexOf('\n', at));
        assertTrue(lineOfIt.contains("dryreject.csv"), "the rejected row's file is not named: " + lineOfIt);
    }

    @Test
    void aMissingColumnNamesTheOptionThatNamedIt() throws Exception {
        Path f = dir.resolve("optcol.csv");
        Files.writeString(f, BAD);
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "nosuch:Int64", f.toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("nosuch") && r.err().contains("--types"), "which option: " + r.err());
    }

    @Test
    void anImportStoppedByMaxErrorsSaysHowToGoOn() throws Exception {
        Path f = dir.resolve("maxstop.csv");
        Files.writeString(f, BAD);
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--tags", "id", "--types", "v:Int64", "--on-error", "skip",
                "--max-errors", "0", f.toString()));
        assertEquals(1, r.code(), r.toString());
        String err = r.err().toLowerCase(Locale.ROOT);
        assertTrue(err.contains("rerun") || err.contains("run the same command") || err.contains("run again"),
                "no next step: " + r.err());
    }
}
