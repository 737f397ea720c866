package dev.sluice.bench.cost;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * CPU time of a process's threads, read from its {@code /proc/<pid>/task} directory, each thread's as last read: a
 * thread that has exited is gone from the directory but keeps counting what it had used at its last reading (the time
 * it used after that is lost), so a reading never decreases.
 *
 * <p>HotSpot starts and retires JIT compiler threads as the compile queue grows and empties
 * ({@code -XX:+UseDynamicNumberOfCompilerThreads}, the default); the cost benchmark starts its client JVMs with
 * {@code -XX:-UseDynamicNumberOfCompilerThreads} so that none exits and all their CPU is read.
 */
final class ThreadsCpu {
    /** {@code USER_HZ}, the unit of {@code /proc} CPU times: 100 on every Linux the JDK supports. */
    private static final long CLOCK_TICKS_PER_SECOND = 100;
    private static final long NANOS_PER_TICK = 1_000_000_000L / CLOCK_TICKS_PER_SECOND;

    /** A thread's name ({@code comm}) and its user and system CPU ticks at its last reading. */
    private record Seen(String comm, long ticks) {
    }

    private final Path tasks;
    /** By thread id and start time (the kernel reuses thread ids). */
    private final Map<String, Seen> threads = new HashMap<>();

    /** @param tasks a {@code task} directory of {@code /proc}, one sub-directory per thread */
    ThreadsCpu(Path tasks) {
        this.tasks = tasks;
    }

    /**
     * Whether a thread is one of HotSpot's JIT compiler threads, {@code C1 CompilerThreadN} or
     * {@code C2 CompilerThreadN} ({@code comm} keeps the first 15 characters).
     *
     * @param comm the thread's name in {@code /proc}
     * @return whether it compiles
     */
    static boolean isJitCompiler(String comm) {
        return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
    }

    /**
     * CPU time (user and system) the threads whose name matches have used so far, those that have exited included,
     * in nanoseconds, or -1 when there is no such directory (off Linux).
     *
     * @param comm which threads, by their name in {@code /proc}
     * @return nanoseconds or -1
     */
    synchronized long nanos(Predicate<String> comm) {
        if (!read()) {
            return -1;
        }
        long ticks = 0;
        for (Seen s : threads.values()) {
            if (comm.test(s.comm())) {
                ticks += s.ticks();
            }
        }
        return ticks * NANOS_PER_TICK;
    }

    /**
     * CPU time of every kind of thread so far (its name without digits), those that have exited included, in
     * nanoseconds; empty off Linux.
     *
     * @return nanoseconds by kind
     */
    synchronized Map<String, Long> nanosByKind() {
        read();
        Map<String, Long> byKind = new HashMap<>();
        for (Seen s : threads.values()) {
            byKind.merge(s.comm().replaceAll("[0-9]+", "N"), s.ticks() * NANOS_PER_TICK, Long::sum);
        }
        return byKind;
    }

    /** Reads every thread's CPU; false when there is no such directory. */
    private boolean read() {
        if (!Files.isDirectory(tasks)) {
            return false;
        }
        // A thread may exit while the directory is listed, which can end the listing early: the threads not reached
        // keep their last reading.
        try (var dirs = Files.newDirectoryStream(tasks)) {
            for (Path task : dirs) {
                read(task);
            }
        } catch (IOException | RuntimeException e) {
            // the listing ended early
        }
        return true;
    }

    /** Records one thread's CPU; a thread that ended while being read keeps its last reading. */
    private void read(Path task) {
        try {
            String comm = Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII).trim();
            String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
            // Fields after the parenthesised name: state is field 3, utime 14, stime 15, starttime 22 (proc(5)).
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            threads.merge(task.getFileName() + "@" + f[19], new Seen(comm, ticks),
                    (old, now) -> now.ticks() >= old.ticks() ? now : old);
        } catch (IOException | RuntimeException e) {
            // The thread ended while we looked.
        }
    }
}
