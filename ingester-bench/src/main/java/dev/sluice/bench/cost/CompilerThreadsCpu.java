package dev.sluice.bench.cost;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of a JVM's JIT compiler threads, read from a {@code /proc/<pid>/task} directory: HotSpot names them
 * {@code C1 CompilerThreadN} and {@code C2 CompilerThreadN} ({@code comm} keeps the first 15 characters).
 *
 * <p>HotSpot starts and retires compiler threads as the compile queue grows and empties
 * ({@code -XX:+UseDynamicNumberOfCompilerThreads}, the default). A thread that has exited is gone from the directory,
 * so each thread's CPU is remembered as last read: the reading never decreases, and a thread that exits between two
 * readings counts what it had used at the first one (the time it used after that is lost; the cost benchmark starts
 * its client JVMs with {@code -XX:-UseDynamicNumberOfCompilerThreads} so that none exits).
 */
final class CompilerThreadsCpu {
    /** {@code USER_HZ}, the unit of {@code /proc} CPU times: 100 on every Linux the JDK supports. */
    private static final long CLOCK_TICKS_PER_SECOND = 100;

    private final Path tasks;
    /** Ticks last read per compiler thread, keyed by thread id and start time (the kernel reuses thread ids). */
    private final Map<String, Long> ticksByThread = new HashMap<>();

    /** @param tasks a {@code task} directory of {@code /proc}, one sub-directory per thread */
    CompilerThreadsCpu(Path tasks) {
        this.tasks = tasks;
    }

    /**
     * CPU time (user and system) the compiler threads have used so far, those that have exited included, in
     * nanoseconds, or -1 when there is no such directory (off Linux).
     *
     * @return nanoseconds or -1
     */
    synchronized long nanos() {
        if (!Files.isDirectory(tasks)) {
            return -1;
        }
        // A thread may exit while the directory is listed, which can end the listing early: the threads not reached
        // keep the ticks of their last reading.
        try (var dirs = Files.newDirectoryStream(tasks)) {
            for (Path task : dirs) {
                read(task);
            }
        } catch (IOException | RuntimeException e) {
            // the listing ended early
        }
        long ticks = 0;
        for (long t : ticksByThread.values()) {
            ticks += t;
        }
        return ticks * (1_000_000_000L / CLOCK_TICKS_PER_SECOND);
    }

    /** Records one thread's ticks if it is a compiler thread; a thread that ended while being read is skipped. */
    private void read(Path task) {
        try {
            String comm = Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII).trim();
            if (!comm.startsWith("C1 CompilerThre") && !comm.startsWith("C2 CompilerThre")) {
                return;
            }
            String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
            // Fields after the parenthesised name: state is field 3, utime 14, stime 15, starttime 22 (proc(5)).
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            ticksByThread.merge(task.getFileName() + "@" + f[19], ticks, Math::max);
        } catch (IOException | RuntimeException e) {
            // The thread ended while we looked: its last reading stands.
        }
    }
}
