package dev.sluice.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ClientJvmOptionsTest {
    /** The final value of a HotSpot flag in a JVM started with the given options. */
    private static String finalFlag(List<String> options, String flag) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Jvm.javaBinary());
        cmd.addAll(options);
        cmd.addAll(List.of("-XX:+PrintFlagsFinal", "-version"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the JVM ended: " + out);
        assertEquals(0, p.exitValue(), out);
        Matcher m = Pattern.compile("\\s" + flag + "\\s+=\\s+(\\S+)").matcher(out);
        assertTrue(m.find(), flag + " in " + out);
        return m.group(1);
    }

    @Test
    void clientJvmsKeepTheirJitCompilerThreadsSoTheirCpuIsStillReadAtTheEndOfARun() throws Exception {
        // C1 only: HotSpot runs two C1 compiler threads here and, by default, retires the second when it idles.
        List<String> options = CostBenchmark.clientJvmOptions(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"));
        assertEquals("false", finalFlag(options, "UseDynamicNumberOfCompilerThreads"), "options: " + options);
    }
}
