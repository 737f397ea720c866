package dev.sluice.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ThreadsCpuTest {
    /** Nanoseconds per {@code /proc} clock tick. */
    private static final long TICK = 10_000_000L;

    @TempDir
    Path tasks;

    /** Writes a thread's {@code comm} and a {@code stat} line with its user and system ticks and its start time. */
    private void thread(int tid, String comm, long utime, long stime, long startTime) throws Exception {
        Path dir = Files.createDirectories(tasks.resolve(Integer.toString(tid)));
        Files.writeString(dir.resolve("comm"), comm + "\n", StandardCharsets.US_ASCII);
        String name = comm.length() > 15 ? comm.substring(0, 15) : comm;
        // proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
        // cutime cstime priority nice num_threads itrealvalue starttime ...
        Files.writeString(dir.resolve("stat"), tid + " (" + name + ") S 1 1 1 0 -1 4194368 10 0 0 0 " + utime + " "
                + stime + " 0 0 20 0 30 0 " + startTime + " 0 0\n", StandardCharsets.US_ASCII);
    }

    private void exited(int tid) throws Exception {
        Path dir = tasks.resolve(Integer.toString(tid));
        Files.delete(dir.resolve("comm"));
        Files.delete(dir.resolve("stat"));
        Files.delete(dir);
    }

    @Test
    void theJitCompilerThreadsAreThoseHotSpotNamesC1AndC2CompilerThread() throws Exception {
        thread(101, "C1 CompilerThread0", 7, 3, 50);
        thread(102, "C2 CompilerThread0", 20, 0, 50);
        thread(103, "main", 500, 40, 40);
        thread(104, "GC Thread#0", 90, 1, 45);
        assertEquals(30 * TICK, new ThreadsCpu(tasks).nanos(ThreadsCpu::isJitCompiler));
    }

    @Test
    void aCompilerThreadThatExitsKeepsTheCpuItUsedSoTheReadingNeverDecreases() throws Exception {
        ThreadsCpu cpu = new ThreadsCpu(tasks);
        thread(101, "C1 CompilerThread0", 10, 5, 50);
        thread(102, "C1 CompilerThread1", 20, 0, 60);
        long first = cpu.nanos(ThreadsCpu::isJitCompiler);
        assertEquals(35 * TICK, first);
        // The JVM retires an idle compiler thread while the other one compiles a little more.
        exited(102);
        thread(101, "C1 CompilerThread0", 12, 5, 50);
        long second = cpu.nanos(ThreadsCpu::isJitCompiler);
        assertEquals(37 * TICK, second, "the exited thread's 20 ticks still count");
        // It starts a compiler thread again: a new thread, counted from zero.
        thread(105, "C1 CompilerThread1", 3, 0, 900);
        assertEquals(40 * TICK, cpu.nanos(ThreadsCpu::isJitCompiler));
    }

    @Test
    void aThreadIdTheKernelGivesToANewCompilerThreadCountsBoth() throws Exception {
        ThreadsCpu cpu = new ThreadsCpu(tasks);
        thread(101, "C1 CompilerThread0", 10, 0, 50);
        thread(102, "C1 CompilerThread1", 20, 0, 60);
        assertEquals(30 * TICK, cpu.nanos(ThreadsCpu::isJitCompiler));
        exited(102);
        thread(102, "C1 CompilerThread1", 4, 0, 700);
        assertEquals(34 * TICK, cpu.nanos(ThreadsCpu::isJitCompiler), "the old thread's 20 ticks and the new one's 4");
    }

    @Test
    void threadsOfAKindThatExitedStillCountInTheirKind() throws Exception {
        ThreadsCpu cpu = new ThreadsCpu(tasks);
        thread(201, "GC Thread#0", 8, 2, 40);
        thread(202, "GC Thread#1", 5, 0, 41);
        assertEquals(15 * TICK, cpu.nanosByKind().get("GC Thread#N"));
        exited(202);
        assertEquals(15 * TICK, cpu.nanosByKind().get("GC Thread#N"));
    }

    @Test
    void offLinuxThereIsNoReading() {
        assertEquals(-1, new ThreadsCpu(tasks.resolve("absent")).nanos(ThreadsCpu::isJitCompiler));
    }
}
