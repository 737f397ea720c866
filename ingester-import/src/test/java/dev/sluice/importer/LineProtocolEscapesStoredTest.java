package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Escaped tag keys, tag values, field keys and string fields arrive as InfluxDB reads them, cell by cell. */
class LineProtocolEscapesStoredTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void escapesNumbersAndBooleansArriveAsWritten() throws IOException {
        Path f = dir.resolve("esc.lp");
        Files.writeString(f, "# a comment line\n"
                + "esc,host=a\\ b,re\\=g=e\\,u v=1,s=\"q\\\"uo\\\\te\",i=5i,u=18446744073709551615u,b=t,f\\ k=2 1700000000000000000\n"
                + "\n"
                + "esc,host=c v=2.5,i=-9223372036854775808i,b=FALSE,s=\"multi word, with = signs\",bs=\"a\\b\\nc\" 1700000000000000001\n"
                + "esc,host=d s=\"trailing\\\\\" 1700000000000000002\n"
                + "esc,host=é s=\"\",v=-1.5E-2 1700000000000000003\n", StandardCharsets.UTF_8);
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(0, r.code(), r.toString());
        TableSchema s = testkit.server().schema("esc");
        assertEquals(DataType.UInt64, s.column(s.indexOf("u")).dataType());
        assertEquals(DataType.Int64, s.column(s.indexOf("i")).dataType());
        assertEquals(DataType.TimestampNanosecond, s.column(s.indexOf("greptime_timestamp")).dataType());
        List<Map<String, Object>> rows = new java.util.ArrayList<>(testkit.server().rows("esc"));
        rows.sort(Comparator.comparing(m -> (Long) m.get("greptime_timestamp")));
        assertEquals(4, rows.size());
        Map<String, Object> a = rows.get(0);
        assertEquals("a b", a.get("host"));
        assertEquals("e,u", a.get("re=g"));
        assertEquals(1.0, a.get("v"));
        assertEquals("q\"uo\\te", a.get("s"));
        assertEquals(5L, a.get("i"));
        assertEquals("18446744073709551615", a.get("u").toString());
        assertEquals(true, a.get("b"));
        assertEquals(2.0, a.get("f k"));
        Map<String, Object> c = rows.get(1);
        assertEquals(Long.MIN_VALUE, c.get("i"));
        assertEquals(false, c.get("b"));
        assertEquals("multi word, with = signs", c.get("s"));
        assertEquals("a\\b\\nc", c.get("bs"));
        assertNull(c.get("re=g"));
        assertEquals("trailing\\", rows.get(2).get("s"));
        assertEquals("é", rows.get(3).get("host"));
        assertEquals("", rows.get(3).get("s"));
        assertEquals(-0.015, rows.get(3).get("v"));
    }
}
