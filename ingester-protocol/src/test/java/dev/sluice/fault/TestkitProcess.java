package dev.sluice.fault;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A testkit server in a child JVM, so that a test measuring the client's memory measures the client alone (an
 * in-process testkit decodes and holds every request in the same heap). Driven over the child's standard input
 * with one command per line; each answer is one line on its standard output.
 */
final class TestkitProcess implements AutoCloseable {
    private final Process process;
    private final PrintWriter commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final int port;

    private TestkitProcess(Process process) throws IOException {
        this.process = process;
        this.commands = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    answers.add(line);
                }
            } catch (IOException e) {
                answers.add("error=" + e);
            }
        }, "testkit-process-reader");
        reader.setDaemon(true);
        reader.start();
        this.port = Integer.parseInt(answer("port="));
    }

    /**
     * Starts the child JVM (same classpath and module flags as this one) with a server that counts rows instead
     * of keeping them.
     *
     * @param heap the child's maximum heap, e.g. {@code "512m"}
     * @return the running server
     * @throws IOException when the child cannot start
     */
    static TestkitProcess start(String heap) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        cmd.add("-Xmx" + heap);
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
                cmd.add(arg);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(TestkitProcess.class.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        return new TestkitProcess(pb.start());
    }

    /** @return {@code host:port} of the child's gRPC port */
    String endpoint() {
        return "127.0.0.1:" + port;
    }

    /**
     * Delays every answer of every path: regular requests and streams by {@code latency}, bulk batch answers too.
     *
     * @param latency the delay
     */
    void latency(Duration latency) {
        commands.println("latency " + latency.toMillis());
        answer("ok");
    }

    /**
     * Counts a table's stored rows in {@code public}.
     *
     * @param table the table
     * @return rows stored
     */
    long rowCount(String table) {
        commands.println("count " + table);
        return Long.parseLong(answer("count="));
    }

    private String answer(String prefix) {
        try {
            String line = answers.poll(60, TimeUnit.SECONDS);
            if (line == null || !line.startsWith(prefix)) {
                throw new IllegalStateException("the testkit process answered '" + line + "', expected " + prefix
                        + "... (alive: " + process.isAlive() + ")");
            }
            return line.substring(prefix.length());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the testkit process", e);
        }
    }

    @Override
    public void close() {
        commands.println("quit");
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /**
     * The child's entry point: starts a server that keeps no rows, prints {@code port=N}, then serves commands
     * ({@code latency <ms>}, {@code count <table>}, {@code quit}) until told to quit or its input ends.
     *
     * @param args unused
     * @throws IOException when standard input fails
     */
    public static void main(String[] args) throws IOException {
        try (GreptimeTestServer server = GreptimeTestServer.builder().retainRows(false).start()) {
            System.out.println("port=" + server.port());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                String[] w = line.trim().split(" ");
                if (w[0].equals("latency")) {
                    Duration d = Duration.ofMillis(Long.parseLong(w[1]));
                    server.faults().latency(d).bulkAckDelay(d);
                    System.out.println("ok");
                } else if (w[0].equals("count")) {
                    System.out.println("count=" + (server.tables().contains(w[1]) ? server.rowCount(w[1]) : 0));
                } else {
                    System.out.println("error=unknown command " + line);
                }
                System.out.flush();
            }
        }
        System.exit(0);
    }
}
