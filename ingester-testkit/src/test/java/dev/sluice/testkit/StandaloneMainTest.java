package dev.sluice.testkit;

import dev.sluice.testkit.internal.Main;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The standalone server ({@link Main}) in a child JVM: it prints the ports it bound and exits when it cannot bind. */
@org.junit.jupiter.api.Timeout(300)
class StandaloneMainTest {
    static Process launch(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    @Test
    void exitsNonZeroNamingTheReasonWhenTheGrpcPortIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Process p = launch("--port", Integer.toString(taken.getLocalPort()), "--http-port", "0");
            try {
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the testkit kept running after failing to bind");
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(1, p.exitValue(), out);
                assertTrue(out.contains("could not start") && out.contains(Integer.toString(taken.getLocalPort())), out);
            } finally {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void printsTheBoundPorts() throws Exception {
        Process p = launch("--port", "0", "--http-port", "0");
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String grpc = null;
            String http = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            String line;
            while ((grpc == null || http == null) && System.nanoTime() < deadline && (line = r.readLine()) != null) {
                if (line.startsWith("grpc-port=")) {
                    grpc = line.substring(10);
                } else if (line.startsWith("http-port=")) {
                    http = line.substring(10);
                }
            }
            assertTrue(grpc != null && Integer.parseInt(grpc) > 0, "grpc port: " + grpc);
            assertTrue(http != null && Integer.parseInt(http) > 0, "http port: " + http);
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            p.destroyForcibly();
        }
    }
}
