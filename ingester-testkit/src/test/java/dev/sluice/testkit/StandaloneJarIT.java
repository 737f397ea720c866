package dev.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.SemanticType;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shaded standalone jar, run with {@code java -jar} as its users run it. */
@org.junit.jupiter.api.Timeout(300)
class StandaloneJarIT {
    @Test
    void startsAndServesWithoutLoggingWarningsOrArrowNotes() throws Exception {
        String given = System.getProperty("testkit.jar");
        // Failsafe names the jar (built by package); a run of this class outside the integration-test phase has none.
        org.junit.jupiter.api.Assumptions.assumeTrue(given != null, "runs after package (mvn verify, failsafe), which"
                + " names the shaded jar in -Dtestkit.jar");
        Path jar = Path.of(given);
        assertTrue(Files.isRegularFile(jar), "the shaded jar is built by package: " + jar);
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString(), "--port", "0", "--http-port", "0");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.BlockingQueue<String> ports = new java.util.concurrent.LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                    if (line.startsWith("grpc-port=")) {
                        ports.add(line.substring(10));
                    }
                }
            } catch (java.io.IOException closed) {
                // the process is gone
            }
        }, "standalone-output");
        reader.start();
        try {
            String grpc = ports.poll(120, TimeUnit.SECONDS);
            assertTrue(grpc != null, "no port printed: " + lines);
            ManagedChannel ch = NettyChannelBuilder.forTarget("127.0.0.1:" + grpc).usePlaintext().build();
            try {
                assertEquals(1, GreptimeDatabaseGrpc.newBlockingStub(ch).handle(TestkitProtocolTest.insert("t",
                        List.of(TestkitProtocolTest.col("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP)),
                        TestkitProtocolTest.row(TestkitProtocolTest.ts(1)))).getAffectedRows().getValue());
            } finally {
                ch.shutdownNow();
            }
            p.destroy();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the server did not stop on SIGTERM");
            reader.join(TimeUnit.SECONDS.toMillis(60));
        } finally {
            p.destroyForcibly();
        }
        assertTrue(lines.stream().noneMatch(l -> l.contains("SLF4J")), String.join("\n", lines));
        assertTrue(lines.stream().noneMatch(l -> l.contains("org.apache.arrow")), String.join("\n", lines));
    }
}
