package dev.sluice.bench.cost;

import dev.sluice.bench.target.GreptimeTarget;
import dev.sluice.bench.target.Target;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The testkit in a JVM of its own ({@code dev.sluice.testkit.internal.Main --no-retain-rows}, free ports), so none of its
 * CPU, garbage or memory is counted as the client's. Rows are reset and counted over its HTTP SQL endpoint.
 */
public final class TestkitProcess implements Target {
    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+?), HTTP on (\\S+?)[;,\\s]");
    private final Process process;
    private final GreptimeTarget target;
    private final String httpEndpoint;
    private final List<String> output = new ArrayList<>();
    /** Ends the testkit if this JVM is stopped (Ctrl-C) before {@link #close()} runs. */
    private final Thread reaper;

    /**
     * Starts the testkit and waits until it listens.
     *
     * @param jvmArgs options of the testkit's JVM, e.g. {@code -Xmx4g}
     * @param startTimeout how long to wait for it to listen
     * @throws IOException when it cannot be started or does not listen in time
     */
    public TestkitProcess(List<String> jvmArgs, Duration startTimeout) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Jvm.javaBinary());
        cmd.addAll(jvmArgs);
        cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.sluice.testkit.internal.Main");
        cmd.addAll(List.of("--host", "127.0.0.1", "--port", "0", "--http-port", "0", "--no-retain-rows"));
        this.process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Process started = process;
        this.reaper = new Thread(started::destroyForcibly, "cost-testkit-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String[]> listening = new CompletableFuture<>();
        Thread pump = new Thread(() -> {
            try {
                String line;
                while ((line = reader.readLine()) != null) {
                    synchronized (output) {
                        if (output.size() < 200) {
                            output.add(line);
                        }
                    }
                    Matcher m = LISTENING.matcher(line + " ");
                    if (m.find()) {
                        listening.complete(new String[] {m.group(1), m.group(2)});
                    }
                }
                listening.completeExceptionally(new IOException("the testkit process ended before listening"));
            } catch (IOException e) {
                listening.completeExceptionally(e);
            }
        }, "cost-testkit-output");
        pump.setDaemon(true);
        pump.start();
        String[] endpoints;
        try {
            endpoints = listening.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException | InterruptedException e) {
            close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("the testkit process did not listen within " + startTimeout + "; its output: "
                    + outputSoFar(), e);
        }
        this.httpEndpoint = endpoints[1];
        this.target = new GreptimeTarget(endpoints[0], endpoints[1], "public", null, null);
    }

    private String outputSoFar() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    /**
     * Returns the testkit's process id.
     *
     * @return the pid
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Returns the testkit's HTTP endpoint ({@code /v1/sql} counts and drops).
     *
     * @return host:port
     */
    public String httpEndpoint() {
        return httpEndpoint;
    }

    @Override
    public String endpoint() {
        return target.endpoint();
    }

    @Override
    public String description() {
        return "testkit in its own JVM (pid " + process.pid() + ", --no-retain-rows) at " + target.endpoint();
    }

    @Override
    public void reset(String table) throws Exception {
        target.reset(table);
    }

    @Override
    public long count(String table) throws Exception {
        return target.count(table);
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook ends the process.
        }
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
