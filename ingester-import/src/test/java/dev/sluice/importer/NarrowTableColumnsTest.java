package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Values converted to an existing table's narrower column types are rejected when they do not fit, never wrapped. */
class NarrowTableColumnsTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static void create(TableSchema schema) {
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(testkit.server().endpoint(),
                "public").build())) {
            assertTrue(db.createTable(schema, Context.newBuilder().build()).join().isOk());
        }
    }

    void importsOnlyTheRowsThatFit(String table, String... path) throws IOException {
        create(TableSchema.newBuilder(table).addTag("id", DataType.String).addField("i32", DataType.Int32)
                .addField("i8", DataType.Int8).addField("u16", DataType.UInt16).addField("flag", DataType.Bool)
                .addTimestamp("ts", DataType.TimestampMillisecond).build());
        Path f = dir.resolve(table + ".csv");
        Files.writeString(f, "id,i32,i8,u16,flag,ts\n"
                + "a,2147483647,-128,65535,true,1700000000001\n"
                + "b,3000000000,1,1,false,1700000000002\n"
                + "c,1,128,1,false,1700000000003\n"
                + "d,1,1,-1,false,1700000000004\n"
                + "e,1,1,65536,false,1700000000005\n"
                + "f,1,1,1,maybe,1700000000006\n");
        Path rejects = dir.resolve(table + ".rejects.jsonl");
        List<String> args = new java.util.ArrayList<>(List.of(path));
        args.addAll(List.of("--on-error", "skip", "--rejects", rejects.toString(), f.toString()));
        Cli.Run r = Cli.run(Cli.at(testkit.server(), args.toArray(new String[0])));
        assertEquals(1, r.code(), r.toString());
        List<Map<String, Object>> rows = testkit.server().rows(table);
        assertEquals(1, rows.size(), rows.toString());
        Map<String, Object> a = rows.get(0);
        assertEquals("a", a.get("id"));
        assertEquals(2147483647L, ((Number) a.get("i32")).longValue());
        assertEquals(-128L, ((Number) a.get("i8")).longValue());
        assertEquals(65535L, ((Number) a.get("u16")).longValue());
        List<String> lines = Files.readAllLines(rejects);
        assertEquals(5, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).contains("\"column\":\"i32\""), lines.get(0));
        assertTrue(lines.get(1).contains("\"column\":\"i8\""), lines.get(1));
        assertTrue(lines.get(2).contains("\"column\":\"u16\""), lines.get(2));
        assertTrue(lines.get(3).contains("\"column\":\"u16\""), lines.get(3));
        assertTrue(lines.get(4).contains("\"column\":\"flag\""), lines.get(4));
    }

    @Test
    void onTheBulkPath() throws IOException {
        importsOnlyTheRowsThatFit("narrow_bulk");
    }

    @Test
    void onTheRegularPath() throws IOException {
        importsOnlyTheRowsThatFit("narrow_regular", "--path", "regular");
    }
}
