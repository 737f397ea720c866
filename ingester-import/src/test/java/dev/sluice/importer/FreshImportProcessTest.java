package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The import as a process of its own, as people run it: it prints only its own lines, and its start-up loads no
 * more than the job needs (neither Arrow's {@code Schema}, whose first use starts Jackson's object mapper, nor the
 * JDK's HTTP client, nor Flight Recorder's event registration: each costs a fresh JVM a few hundred milliseconds).
 */
class FreshImportProcessTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void aBulkImportOfCsvPrintsNoLoggingChatterAndLoadsNeitherArrowsSchemaNorTheJdkHttpClient() throws Exception {
        Path csv = dir.resolve("fresh.csv");
        StringBuilder sb = new StringBuilder("host,v,ts\n");
        for (int i = 0; i < 500; i++) {
            sb.append("h").append(i % 7).append(',').append(i * 0.5).append(',').append(1_700_000_000_000L + i).append('\n');
        }
        Files.writeString(csv, sb.toString());
        Path classes = dir.resolve("classes.txt");
        List<String> cmd = CrashResumeTest.childCommand(List.of("-Xlog:class+load=info:file=" + classes),
                Cli.at(testkit.server(), "--tags", "host", "--progress-interval", "60", csv.toString()));
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the import did not end");
        String printed = Files.readString(out);
        assertEquals(0, p.exitValue(), printed);
        assertEquals(500, testkit.server().rowCount("fresh"));
        assertTrue(printed.contains("500 written"), printed);
        assertFalse(printed.contains("SLF4J"), printed);

        String loaded = Files.readString(classes);
        assertTrue(loaded.contains("dev.sluice.bulk.internal.ArrowTableCodec "), "the bulk path wrote the rows");
        assertFalse(loaded.contains("org.apache.arrow.vector.types.pojo.Schema "), "Arrow's Schema was loaded");
        assertFalse(loaded.contains("com.fasterxml.jackson.databind.ObjectMapper "), "Jackson's ObjectMapper was loaded");
        assertFalse(loaded.contains("java.net.http.HttpClient "), "the JDK's HTTP client was loaded");
    }

    @Test
    void anImportRegistersNoFlightRecorderEventsUnlessAskedTo() throws Exception {
        Path csv = dir.resolve("events.csv");
        Files.writeString(csv, "host,v,ts\nh1,1.5,1700000000000\nh2,2.5,1700000000001\n");
        Path classes = dir.resolve("events-classes.txt");
        List<String> cmd = CrashResumeTest.childCommand(List.of("-Xlog:class+load=info:file=" + classes),
                "--endpoint", testkit.server().endpoint(), "--http-endpoint", testkit.server().httpEndpoint(),
                "--tags", "host", "--quiet", csv.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("events.txt").toFile())
                .start();
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the import did not end");
        assertEquals(0, p.exitValue(), Files.readString(dir.resolve("events.txt")));
        assertEquals(2, testkit.server().rowCount("events"));

        // Netty's buffer allocation events: registering them generates a handler class per event, a few hundred
        // milliseconds of a fresh JVM, for recordings nobody started.
        String loaded = Files.readString(classes);
        assertFalse(loaded.contains("jdk.jfr.internal.MetadataRepository "), "Flight Recorder events were registered");
        assertFalse(loaded.contains("jdk.jfr.internal.EventHandlerCreator "), "Flight Recorder event handlers were made");
    }
}
