package dev.sluice.importer.lpreference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A field named as the time index column, or a tag and a field of one name, cannot both be a column: the line is
 * rejected naming it, never stored with one of the two values dropped.
 */
class NamesThatClashWithTheTableAreRejectedTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aFieldNamedAsTheTimeIndexIsRejectedAndTheTimeKept() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "tsfield",
                "tsfield,k=a v=1 1000\ntsfield,k=b greptime_timestamp=5i 2000\ntsfield,k=c v=3 3000\n".getBytes(UTF_8));
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "tsfield");
        assertTrue(rows.stream().noneMatch(m -> Long.valueOf(5).equals(m.get("greptime_timestamp"))),
                "a field overwrote the time: " + rows + "\n" + r);
        assertEquals(3, rows.size() + r.rejects().size(), rows + "\n" + r);
    }

    @Test
    void aTagAndAFieldOfOneNameIsRejected() throws Exception {
        LpProbe.Result r = LpProbe.skip(testkit.server(), dir, "tagfield",
                "tagfield,k=a v=1 1000\ntagfield,k=b,v=x v=2 2000\ntagfield,k=c v=3 3000\n".getBytes(UTF_8));
        List<Map<String, Object>> rows = LpProbe.rowsByTime(testkit.server(), "tagfield");
        assertEquals(1, r.rejects().size(), rows + "\n" + r);
        assertTrue(r.rejects().get(0).contains("\"line\":2"), r.toString());
        assertEquals(List.of("a", "c"), rows.stream().map(m -> m.get("k")).toList(), r.toString());
    }
}
