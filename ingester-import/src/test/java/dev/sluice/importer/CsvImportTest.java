package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class CsvImportTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static long ms(String iso) {
        return Instant.parse(iso).toEpochMilli();
    }

    @Test
    void quotesEmbeddedDelimitersAndNewlinesUtf8NullsAndBomArriveCellByCell() throws IOException {
        GreptimeTestServer server = testkit.server();
        Path csv = dir.resolve("hosts.csv");
        Files.writeString(csv, "\uFEFFhost,region,cpu,count,ok,note,ts\n"
                + "web-1,\"eu,west\",0.5,3,true,\"said \"\"hi\"\"\ntwice\",2024-01-01T00:00:00Z\n"
                + "web-2,東京,1.25,,false,ünïcödé ✓,2024-01-01T00:00:01.500Z\n"
                + "web-3,us,,7,,,2024-01-01 00:00:02\n", StandardCharsets.UTF_8);
        Cli.Run r = Cli.run(Cli.at(server, "--tags", "host,region", csv.toString()));
        assertEquals(0, r.code(), r.toString());

        TableSchema s = server.schema("hosts");
        assertEquals(List.of("host", "region", "cpu", "count", "ok", "note", "ts"),
                s.columns().stream().map(TableSchema.Column::name).toList());
        assertEquals(SemanticType.Tag, s.column(0).semanticType());
        assertEquals(SemanticType.Tag, s.column(1).semanticType());
        assertEquals(DataType.Float64, s.column(2).dataType());
        assertEquals(DataType.Int64, s.column(3).dataType());
        assertEquals(DataType.Bool, s.column(4).dataType());
        assertEquals(DataType.String, s.column(5).dataType());
        assertEquals(DataType.TimestampMillisecond, s.column(6).dataType());
        assertEquals(SemanticType.Timestamp, s.column(6).semanticType());

        List<Map<String, Object>> rows = server.rows("hosts");
        assertEquals(3, rows.size());
        Map<String, Object> a = rows.get(0);
        assertEquals("web-1", a.get("host"));
        assertEquals("eu,west", a.get("region"));
        assertEquals(0.5, a.get("cpu"));
        assertEquals(3L, a.get("count"));
        assertEquals(true, a.get("ok"));
        assertEquals("said \"hi\"\ntwice", a.get("note"));
        assertEquals(ms("2024-01-01T00:00:00Z"), a.get("ts"));
        Map<String, Object> b = rows.get(1);
        assertEquals("東京", b.get("region"));
        assertEquals(1.25, b.get("cpu"));
        assertNull(b.get("count"));
        assertEquals(false, b.get("ok"));
        assertEquals("ünïcödé ✓", b.get("note"));
        assertEquals(ms("2024-01-01T00:00:01.500Z"), b.get("ts"));
        Map<String, Object> c = rows.get(2);
        assertNull(c.get("cpu"));
        assertEquals(7L, c.get("count"));
        assertNull(c.get("ok"));
        assertNull(c.get("note"));
        assertEquals(ms("2024-01-01T00:00:02Z"), c.get("ts"));
        assertTrue(r.out().contains("3 rows read, 3 written (acknowledged), 0 rejected"), r.out());
    }

    @Test
    void aQuotedEmptyValueIsAnEmptyStringAndOnlyAnUnquotedEmptyValueIsNull() throws IOException {
        Path csv = dir.resolve("empties.csv");
        Files.writeString(csv, "id,note,ts\n1,\"\",1700000000001\n2,,1700000000002\n3,\" \",1700000000003\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", csv.toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Object> notes = notes("empties");
        assertEquals("", notes.get(1L));
        assertTrue(notes.containsKey(2L));
        assertNull(notes.get(2L));
        assertEquals(" ", notes.get(3L));
    }

    @Test
    void aQuotedNullTokenIsText() throws IOException {
        Path csv = dir.resolve("tokens.csv");
        Files.writeString(csv, "id,note,ts\n1,\"NA\",1700000000001\n2,NA,1700000000002\n3,,1700000000003\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--null", "NA", csv.toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Object> notes = notes("tokens");
        assertEquals("NA", notes.get(1L));
        assertNull(notes.get(2L));
        assertEquals("", notes.get(3L));
    }

    @Test
    void backslashEscapesKeepDelimitersQuotesBackslashesAndLineBreaksInValues() throws IOException {
        Path csv = dir.resolve("escaped.csv");
        Files.writeString(csv, "id,note,ts\n"
                + "1,a\\,b,1700000000001\n"
                + "2,\"say \\\"hi\\\"\",1700000000002\n"
                + "3,back\\\\slash,1700000000003\n"
                + "4,two\\nlines,1700000000004\n"
                + "5,\"quoted, with \\\\ and \"\"\",1700000000005\n"
                + "6,\\\n,1700000000006\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--tags", "id", "--escape", "\\", csv.toString()));
        assertEquals(0, r.code(), r.toString());
        Map<Long, Object> notes = notes("escaped");
        assertEquals("a,b", notes.get(1L));
        assertEquals("say \"hi\"", notes.get(2L));
        assertEquals("back\\slash", notes.get(3L));
        assertEquals("two\nlines", notes.get(4L));
        assertEquals("quoted, with \\ and \"", notes.get(5L));
        assertEquals("\n", notes.get(6L));
        assertEquals(6, notes.size());
    }

    static Map<Long, Object> notes(String table) {
        Map<Long, Object> out = new java.util.HashMap<>();
        testkit.server().rows(table).forEach(m -> out.put((Long) m.get("id"), m.get("note")));
        return out;
    }
}
