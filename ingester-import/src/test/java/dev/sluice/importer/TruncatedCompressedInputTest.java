package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A compressed input that cannot be read to its end fails the import naming that input. */
class TruncatedCompressedInputTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(b)) {
            z.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return b.toByteArray();
    }

    @Test
    void aGzipFileCutOffMidStreamIsNamed() throws IOException {
        StringBuilder sb = new StringBuilder("id,v,ts\n");
        for (int i = 1; i <= 20_000; i++) {
            sb.append(i).append(',').append(i).append(".5,").append(1_700_000_000_000L + i).append('\n');
        }
        byte[] whole = gzip(sb.toString());
        Path good = dir.resolve("good.csv.gz");
        Files.write(good, gzip("id,v,ts\n1,1.5,1700000000001\n"));
        Path cut = dir.resolve("cut.csv.gz");
        Files.write(cut, Arrays.copyOf(whole, whole.length / 2));
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", "cut", "--tags", "id", "--types", "v:Float64",
                good.toString(), cut.toString()));
        assertEquals(3, r.code(), r.toString());
        assertTrue(r.err().contains("cut.csv.gz"), r.err());
    }

    @Test
    void aFileNamedGzipThatIsNotFailsNamingIt() throws IOException {
        Path f = dir.resolve("plain.csv.gz");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000001\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), f.toString()));
        assertEquals(3, r.code(), r.toString());
        assertTrue(r.err().contains("plain.csv.gz' cannot be read"), r.err());
        assertTrue(!testkit.server().tables().contains("plain"));
    }
}
