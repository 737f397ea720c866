package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** One file reached through several arguments (a path, another spelling of it, a directory) is loaded once. */
class SameFileNamedTwiceTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void anAppendModeTableHoldsEachRowOnce() throws IOException {
        Path f = dir.resolve("twice.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000001\n2,2.5,1700000000002\n");
        Path other = dir.resolve("sub/../twice.csv");
        Files.createDirectory(dir.resolve("sub"));
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "-q", "--with", "append_mode=true", "--tags", "id", f.toString(),
                other.toString(), dir.toString()));
        assertEquals(0, r.code(), r.toString());
        assertEquals(2, testkit.server().rowCount("twice"), r.toString());
    }
}
