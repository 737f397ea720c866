package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A Json column holds any JSON value: a scalar after nested values in the same key is stored as its JSON text. */
class JsonStringInAJsonColumnTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aStringAfterObjectsIsStoredAsAJsonString() throws IOException {
        Path f = dir.resolve("jmix.jsonl");
        Files.writeString(f, "{\"id\":1,\"ts\":1704067200000,\"o\":{\"a\":[1,2]}}\n"
                + "{\"id\":2,\"ts\":1704067201000,\"o\":[1,\"b\"]}\n"
                + "{\"id\":3,\"ts\":1704067202000,\"o\":\"str\"}\n"
                + "{\"id\":4,\"ts\":1704067203000,\"o\":7}\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", f.toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Object> o = new java.util.TreeMap<>();
        testkit.server().rows("jmix").forEach(m -> o.put((Long) m.get("id"), m.get("o")));
        assertEquals("{\"a\":[1,2]}", o.get(1L));
        assertEquals("[1,\"b\"]", o.get(2L));
        assertEquals("\"str\"", o.get(3L));
        assertEquals("7", o.get(4L));
    }
}
