package dev.sluice.bench.cost;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** What the cost benchmark reads about the JVM it runs in: CPU, peak resident memory, allocation, JIT time. */
final class Jvm {
    private static final ThreadsCpu THREADS = new ThreadsCpu(Path.of("/proc/self/task"));

    private Jvm() {
    }

    /** The {@code java} launcher of this JVM, for the child processes. */
    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** CPU time of the whole process (every thread: application, GC, JIT), in nanoseconds. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Milliseconds the JIT compilers have spent so far, or -1 when the JVM does not tell. */
    static long compilationMillis() {
        CompilationMXBean c = ManagementFactory.getCompilationMXBean();
        return c != null && c.isCompilationTimeMonitoringSupported() ? c.getTotalCompilationTime() : -1;
    }

    /**
     * CPU time (user and system) of this JVM's JIT compiler threads so far, those that have exited included, in
     * nanoseconds, or -1 off Linux.
     *
     * @return nanoseconds or -1
     */
    static long compilerCpuNanos() {
        return THREADS.nanos(ThreadsCpu::isJitCompiler);
    }

    /**
     * The process's peak resident set ({@code VmHWM} in {@code /proc/self/status}), in KiB, or -1 off Linux.
     *
     * @return KiB or -1
     */
    static long peakRssKiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** The CPU of this process's threads, as {@link ThreadsCpu} reads it. */
    static ThreadsCpu threads() {
        return THREADS;
    }

    /** Heap bytes allocated so far by each live thread, by thread id. */
    static Map<Long, Long> allocatedByThread() {
        ThreadMXBean t = ManagementFactory.getThreadMXBean();
        Map<Long, Long> out = new HashMap<>();
        if (t instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()) {
            if (!sun.isThreadAllocatedMemoryEnabled()) {
                sun.setThreadAllocatedMemoryEnabled(true);
            }
            long[] ids = sun.getAllThreadIds();
            long[] bytes = sun.getThreadAllocatedBytes(ids);
            for (int i = 0; i < ids.length; i++) {
                if (bytes[i] > 0) {
                    out.put(ids[i], bytes[i]);
                }
            }
        }
        return out;
    }

    /**
     * Heap bytes the live threads allocated since a snapshot (threads born since count from zero).
     *
     * @param before an earlier {@link #allocatedByThread()}
     * @return bytes
     */
    static long allocatedSince(Map<Long, Long> before) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : allocatedByThread().entrySet()) {
            sum += Math.max(0, e.getValue() - before.getOrDefault(e.getKey(), 0L));
        }
        return sum;
    }
}
