package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files of one import map their columns by header name, in any order and with columns left out; a file bringing a
 * column the others lack is added on the regular path, and on the bulk path reported before anything is sent.
 */
class LaterFileWithAnExtraColumnTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    Path files(String name, boolean extra) throws IOException {
        Path d = Files.createDirectory(dir.resolve(name));
        Files.writeString(d.resolve("a.csv"), "id,v,ts\n1,1.5,1700000000001\n");
        Files.writeString(d.resolve("b.csv"), "ts,id,v\n1700000000002,2,2.5\n");
        Files.writeString(d.resolve("c.csv"), "id,ts\n3,1700000000003\n");
        if (extra) {
            Files.writeString(d.resolve("d.csv"), "id,v,ts,extra\n4,4.5,1700000000004,zz\n");
        }
        return d;
    }

    static Map<Long, Map<String, Object>> byId(String table) {
        Map<Long, Map<String, Object>> out = new TreeMap<>();
        testkit.server().rows(table).forEach(m -> out.put((Long) m.get("id"), m));
        return out;
    }

    @Test
    void headersInAnotherOrderOrWithoutAColumnMapByName() throws IOException {
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "by_name", "--tags", "id", "--parallelism", "1",
                files("by_name", false).toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Map<String, Object>> rows = byId("by_name");
        assertEquals(1.5, rows.get(1L).get("v"));
        assertEquals(2.5, rows.get(2L).get("v"));
        assertEquals(1_700_000_000_002L, rows.get(2L).get("ts"));
        assertTrue(rows.get(3L).containsKey("v") && rows.get(3L).get("v") == null, rows.toString());
    }

    @Test
    void theRegularPathAddsTheColumn() throws IOException {
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "extra_regular", "--tags", "id", "--path", "regular",
                files("extra_regular", true).toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Map<String, Object>> rows = byId("extra_regular");
        assertEquals(4, rows.size());
        assertEquals("zz", rows.get(4L).get("extra"));
    }

    @Test
    void theBulkPathReportsTheColumnBeforeSendingAnything() throws IOException {
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "extra_bulk", "--tags", "id",
                files("extra_bulk", true).toString()));
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("d.csv") && r.err().contains("extra"), r.err());
        assertEquals(0, testkit.server().tables().contains("extra_bulk") ? testkit.server().rowCount("extra_bulk") : 0);
    }
}
