package dev.sluice.bench.cost;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The writing thread's CPU per row of {@code BulkRowsBenchmark} (rows into a bulk writer's batches, no transport)
 * for several builds in one JVM: each build's {@code ingester-bench.jar} in a class loader of its own, the builds
 * taking turns many times (short turns, so that a machine shared with other work slows every build alike), each
 * turn timed by the thread's own CPU clock rather than the wall clock. Prints, per build after the first, the median
 * of its per-turn ratio to the first build, then each build's median and lowest CPU per row.
 *
 * <p>usage: {@code java -Xmx3g --add-opens=java.base/java.nio=ALL-UNNAMED -cp ingester-bench.jar
 * dev.sluice.bench.cost.RowsCpuAB ROUNDS BATCHES METHOD A.jar B.jar...} where {@code METHOD} is
 * {@code objects} or {@code typed} and a turn writes {@code BATCHES} batches of 1,000 rows; the workload is
 * {@code metrics} unless {@code -Dworkload=logs}. Two uncounted rounds warm every build up first.
 */
public final class RowsCpuAB {
    private RowsCpuAB() {
    }

    /**
     * Runs the turns and prints the figures.
     *
     * @param args rounds, batches per turn, the benchmark method, then the jars
     * @throws Exception when a build cannot be loaded or run
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: RowsCpuAB ROUNDS BATCHES objects|typed A.jar B.jar...");
            System.exit(2);
        }
        int rounds = Integer.parseInt(args[0]);
        int batches = Integer.parseInt(args[1]);
        int n = args.length - 3;
        Object[] bench = new Object[n];
        Method[] method = new Method[n];
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < n; i++) {
            ClassLoader loader = new URLClassLoader("build" + i, new URL[] {Path.of(args[3 + i]).toUri().toURL()},
                    ClassLoader.getPlatformClassLoader());
            Class<?> c = Class.forName("dev.sluice.bench.jmh.BulkRowsBenchmark", true, loader);
            bench[i] = c.getDeclaredConstructor().newInstance();
            c.getField("workload").set(bench[i], System.getProperty("workload", "metrics"));
            c.getMethod("setup").invoke(bench[i]);
            method[i] = c.getMethod(args[2]);
        }
        double[][] nanosPerRow = new double[n][rounds];
        for (int r = -2; r < rounds; r++) {
            for (int k = 0; k < n; k++) {
                int i = (r & 1) == 0 ? k : n - 1 - k;
                long t0 = threads.getCurrentThreadCpuTime();
                for (int b = 0; b < batches; b++) {
                    method[i].invoke(bench[i]);
                }
                long t1 = threads.getCurrentThreadCpuTime();
                if (r >= 0) {
                    nanosPerRow[i][r] = (t1 - t0) / (batches * 1000.0);
                }
            }
        }
        for (int i = 1; i < n; i++) {
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratio[r] = nanosPerRow[i][r] / nanosPerRow[0][r];
            }
            Arrays.sort(ratio);
            System.out.printf(Locale.ROOT, "%s / %s: median ratio %.3f (quartiles %.3f %.3f)%n", args[3 + i], args[3],
                    ratio[rounds / 2], ratio[rounds / 4], ratio[3 * rounds / 4]);
        }
        for (int i = 0; i < n; i++) {
            double[] s = nanosPerRow[i].clone();
            Arrays.sort(s);
            System.out.printf(Locale.ROOT, "%-40s median %7.1f ns/row, lowest %7.1f%n", args[3 + i], s[rounds / 2], s[0]);
        }
        for (Object b : bench) {
            b.getClass().getMethod("tearDown").invoke(b);
        }
    }
}
