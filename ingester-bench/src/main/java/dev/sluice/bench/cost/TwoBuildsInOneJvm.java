package dev.sluice.bench.cost;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Two builds of the client side by side in one JVM: each build's {@code ingester-bench.jar} in a class loader of its
 * own (nothing shared but the JDK), both writing the same rows through {@link CostClient} to one testkit in a process
 * of its own, the builds interleaved round by round (A B, then B A, ...). A machine that slows down or speeds up
 * mid-measurement moves both builds alike, and the JIT, heap and GC are the same for both.
 *
 * <p>A first round, not counted, warms both builds up. Each round runs a short and a long run of each build and prints, per build, the marginal CPU per row (long
 * less short over the extra rows) twice: of the whole process, and of the client's own threads (the process less
 * the GC and JIT threads and this class's own reader of the threads' CPU, read from {@code /proc/self/task}), and the process's kernel-mode CPU per row. After all rounds it prints each figure's median and
 * the ratio B/A of the medians and of each round's pair.
 *
 * <p>usage: {@code java -Xmx6g -XX:MaxDirectMemorySize=6g --add-opens=java.base/java.nio=ALL-UNNAMED -cp
 * ingester-bench.jar dev.sluice.bench.cost.TwoBuildsInOneJvm A.jar B.jar ROUNDS SHORT LONG COSTCLIENT-OPTIONS...}
 * where the options are {@link CostClient}'s without {@code --rows} and {@code --endpoint}, e.g.
 * {@code --workload logs --mode bulk --batch 65536 --parallelism 1 --max-in-flight 4}. A jar may be followed by
 * options of its own that replace the common ones, {@code JAR@--mode,workload}: one build against itself with the
 * workload alone ({@value CostBenchmark#WORKLOAD_ONLY}) as A sets the client's own cost apart from the workload's.
 */
public final class TwoBuildsInOneJvm {
    private TwoBuildsInOneJvm() {
    }

    /** One build: its own class loader and its runs' figures. */
    private static final class Build {
        final String name;
        final ClassLoader loader;
        final List<double[]> rounds = new ArrayList<>();
        /** Per round, the marginal CPU per row of each kind of thread. */
        final List<Map<String, Double>> kinds = new ArrayList<>();
        /** The last run's CPU by kind of thread, in nanoseconds. */
        Map<String, Long> lastKinds = Map.of();
        /** Options of this build's runs that replace the common ones, in pairs (name, value). */
        final String[] own;

        /** @param spec {@code JAR} or {@code JAR@--option,value,...} */
        Build(String name, String spec) throws IOException {
            int at = spec.indexOf('@');
            Path jar = Path.of(at < 0 ? spec : spec.substring(0, at));
            this.name = name;
            this.own = at < 0 ? new String[0] : spec.substring(at + 1).split(",");
            this.loader = new URLClassLoader(name, new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        }

        /** The common options with this build's own in place of theirs, and the run's rows and endpoint. */
        String[] options(String[] common, long rows, String endpoint) {
            List<String> all = new ArrayList<>(Arrays.asList(common));
            for (int i = 0; i + 1 < own.length; i += 2) {
                int k = all.indexOf(own[i]);
                if (k >= 0) {
                    all.set(k + 1, own[i + 1]);
                } else {
                    all.add(own[i]);
                    all.add(own[i + 1]);
                }
            }
            all.addAll(List.of("--rows", Long.toString(rows), "--endpoint", endpoint));
            return all.toArray(String[]::new);
        }

        /** Runs {@link CostClient} of this build with the given options; returns {process CPU, client CPU} in ns. */
        long[] run(String[] options) throws Exception {
            System.gc();
            Thread me = Thread.currentThread();
            ClassLoader before = me.getContextClassLoader();
            PrintStream out = System.out;
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            Map<String, Long> kinds0 = THREADS.totals();
            long jvm0 = gcAndJitNanos();
            long sys0 = systemNanos();
            long cpu0 = Jvm.processCpuNanos();
            int rc;
            me.setContextClassLoader(loader);
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                Class<?> commandLine = Class.forName("picocli.CommandLine", true, loader);
                Object client = Class.forName("dev.sluice.bench.cost.CostClient", true, loader)
                        .getDeclaredConstructor().newInstance();
                Object cmd = commandLine.getConstructor(Object.class).newInstance(client);
                commandLine.getMethod("setCaseInsensitiveEnumValuesAllowed", boolean.class).invoke(cmd, true);
                rc = (int) commandLine.getMethod("execute", String[].class).invoke(cmd, (Object) options);
            } finally {
                System.setOut(out);
                me.setContextClassLoader(before);
            }
            long processCpu = Jvm.processCpuNanos() - cpu0;
            long jvmCpu = gcAndJitNanos() - jvm0;
            long sysCpu = systemNanos() - sys0;
            Map<String, Long> kinds1 = THREADS.totals();
            Map<String, Long> used = new HashMap<>();
            kinds1.forEach((k, v) -> used.put(k, v - kinds0.getOrDefault(k, 0L)));
            lastKinds = used;
            String line = captured.toString(StandardCharsets.UTF_8).lines()
                    .filter(l -> l.startsWith(CostClient.MARKER)).findFirst()
                    .orElseThrow(() -> new IllegalStateException(name + " printed no result line: " + captured));
            Map<String, String> f = new HashMap<>();
            for (String kv : line.substring(CostClient.MARKER.length()).trim().split(" ")) {
                String[] p = kv.split("=", 2);
                f.put(p[0], p[1]);
            }
            if (rc != 0 || !f.get("acked").equals(f.get("rows"))) {
                throw new IllegalStateException(name + " did not have every row acknowledged: " + line);
            }
            // The client's own figure is CostClient's (from the client's creation to its shutdown); the GC and JIT
            // share of this run is taken off it as measured around the whole call.
            long clientCpu = Long.parseLong(f.get("cpu_ns"));
            long sampler = used.getOrDefault(SAMPLER, 0L);
            return new long[] {clientCpu, clientCpu - jvmCpu - sampler, processCpu, sysCpu};
        }
    }

    /**
     * Runs the interleaved rounds and prints them.
     *
     * @param args jar A, jar B, rounds, short rows, long rows, then {@link CostClient}'s options
     * @throws Exception when a run fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: TwoBuildsInOneJvm A.jar[@--option,value] B.jar[@...] ROUNDS SHORT LONG"
                    + " COSTCLIENT-OPTIONS...");
            System.exit(2);
        }
        if (System.getProperty(dev.sluice.bench.BenchMain.NETTY_UNZEROED) == null) {
            System.setProperty(dev.sluice.bench.BenchMain.NETTY_UNZEROED, "true");
        }
        Build a = new Build("A", args[0]);
        Build b = new Build("B", args[1]);
        int rounds = Integer.parseInt(args[2]);
        long shortRows = Long.parseLong(args[3]);
        long longRows = Long.parseLong(args[4]);
        String[] options = Arrays.copyOfRange(args, 5, args.length);
        try (TestkitProcess server = new TestkitProcess(List.of("-Xmx2g", "-XX:MaxDirectMemorySize=2g"),
                Duration.ofMinutes(2))) {
            System.out.printf(Locale.ROOT, "A=%s%nB=%s%nserver %s, %d rounds of %d and %d rows, %s%n", args[0], args[1],
                    server.endpoint(), rounds, shortRows, longRows, String.join(" ", options));
            System.out.printf(Locale.ROOT, "%5s %5s %14s %14s %14s %14s %14s%n", "round", "build", "marginal_us",
                    "client_us", "cold_us", "gc+jit_us", "sys_us");
            for (int r = 0; r <= rounds; r++) {
                for (Build x : r % 2 == 1 ? List.of(a, b) : List.of(b, a)) {
                    long[] s = x.run(x.options(options, shortRows, server.endpoint()));
                    Map<String, Long> shortKinds = x.lastKinds;
                    long[] l = x.run(x.options(options, longRows, server.endpoint()));
                    if (r == 0) {
                        continue; // the warm-up round: each build's classes loaded and compiled, not counted
                    }
                    double d = (longRows - shortRows) * 1000.0;
                    double[] fig = {(l[0] - s[0]) / d, (l[1] - s[1]) / d, l[0] / (longRows * 1000.0),
                        ((l[0] - l[1]) - (s[0] - s[1])) / d, (l[3] - s[3]) / d};
                    x.rounds.add(fig);
                    Map<String, Double> perKind = new HashMap<>();
                    x.lastKinds.forEach((k, v) -> perKind.put(k, (v - shortKinds.getOrDefault(k, 0L)) / d));
                    x.kinds.add(perKind);
                    System.out.printf(Locale.ROOT, "%5d %5s %14.3f %14.3f %14.3f %14.3f %14.3f%n", r, x.name, fig[0],
                            fig[1], fig[2], fig[3], fig[4]);
                }
            }
        }
        String[] names = {"marginal_us", "client_us", "cold_us", "gc+jit_us", "sys_us"};
        System.out.printf(Locale.ROOT, "%-12s %10s %10s %10s   %s%n", "median", "A", "B", "B/A", "B/A each round");
        for (int i = 0; i < names.length; i++) {
            double ma = median(a, i);
            double mb = median(b, i);
            StringBuilder pairs = new StringBuilder();
            for (int r = 0; r < a.rounds.size(); r++) {
                pairs.append(String.format(Locale.ROOT, "%.2f ", b.rounds.get(r)[i] / a.rounds.get(r)[i]));
            }
            System.out.printf(Locale.ROOT, "%-12s %10.3f %10.3f %10.3f   %s%n", names[i], ma, mb, mb / ma, pairs);
        }
        System.out.printf(Locale.ROOT, "%nmarginal CPU per row by thread (name without digits), medians%n%10s %10s  %s%n",
                "A_us", "B_us", "threads");
        java.util.Set<String> all = new java.util.TreeSet<>();
        a.kinds.forEach(m -> all.addAll(m.keySet()));
        b.kinds.forEach(m -> all.addAll(m.keySet()));
        for (String k : all) {
            double ka = medianOf(a.kinds.stream().mapToDouble(m -> m.getOrDefault(k, 0.0)).toArray());
            double kb = medianOf(b.kinds.stream().mapToDouble(m -> m.getOrDefault(k, 0.0)).toArray());
            if (Math.abs(ka) >= 0.005 || Math.abs(kb) >= 0.005) {
                System.out.printf(Locale.ROOT, "%10.3f %10.3f  %s%n", ka, kb, k);
            }
        }
        THREADS.close();
    }

    private static double median(Build x, int figure) {
        return medianOf(x.rounds.stream().mapToDouble(f -> f[figure]).toArray());
    }

    private static double medianOf(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length == 0 ? 0 : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The name of the thread that reads the others' CPU (its own CPU is not the client's). */
    private static final String SAMPLER = "ab-thread-cpu";
    private static final ThreadCpu THREADS = new ThreadCpu();

    /**
     * CPU of every thread this process has run, by kind (its name without digits), read from {@code /proc/self/task}
     * every 200 ms: a thread that ends during a run is counted up to its last reading.
     */
    private static final class ThreadCpu implements AutoCloseable {
        private final Thread sampler;
        private volatile boolean stop;

        ThreadCpu() {
            sampler = new Thread(() -> {
                while (!stop) {
                    read();
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, SAMPLER);
            sampler.setDaemon(true);
            sampler.start();
        }

        private void read() {
            Jvm.threads().nanosByKind();
        }

        /** Every kind's CPU so far, in nanoseconds. */
        Map<String, Long> totals() {
            return Jvm.threads().nanosByKind();
        }

        @Override
        public void close() {
            stop = true;
            sampler.interrupt();
        }
    }

    /** Kernel-mode CPU of the whole process so far, from {@code /proc/self/stat}, in nanoseconds. */
    private static long systemNanos() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.US_ASCII);
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[12]) * 10_000_000L;
    }

    /** CPU of the JVM's own GC and JIT compiler threads so far, from {@code /proc/self/task}, in nanoseconds. */
    private static long gcAndJitNanos() {
        return Jvm.threads().nanos(comm -> ThreadsCpu.isJitCompiler(comm) || comm.startsWith("GC Thread")
                || comm.startsWith("G1 "));
    }
}
