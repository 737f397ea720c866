package dev.sluice.bench.run;

import dev.sluice.write.Context;
import dev.sluice.GreptimeDB;
import dev.sluice.bench.workload.Workload;
import dev.sluice.bulk.BulkWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** One way of writing the workload: regular, stream or bulk. */
public interface ModeRunner {
    /**
     * What a run needs.
     *
     * @param db the client
     * @param workload the rows
     * @param rows how many rows
     * @param batch rows per batch
     * @param parallelism concurrent writers
     * @param context hints and compression
     * @param bulkConfig settings of bulk writers
     * @param batchingPath the path of the batching mode
     */
    record Run(GreptimeDB db, Workload workload, long rows, int batch, int parallelism, Context context,
               BulkWrite.Config bulkConfig, dev.sluice.BatchingWriter.Path batchingPath) {
        /** @return number of batches */
        public long batches() {
            return (rows + batch - 1) / batch;
        }

        /**
         * Returns the rows of a batch.
         *
         * @param b batch index
         * @return row count
         */
        public int rowsOf(long b) {
            return (int) Math.min(batch, rows - b * batch);
        }
    }

    /**
     * Returns the mode's name.
     *
     * @return regular, stream or bulk
     */
    String name();

    /**
     * Runs one worker: takes batch indexes from {@code next} until none are left.
     *
     * @param run the run
     * @param next shared batch counter
     * @param stats where to record
     * @throws Exception on a failure that ends the worker (recorded by the caller)
     */
    void work(Run run, AtomicLong next, RunStats stats) throws Exception;

    /**
     * Returns how many latency samples the run may record.
     *
     * @param run the run
     * @return the number of batches (rows for single-row modes)
     */
    default long units(Run run) {
        return run.batches();
    }

    /**
     * Runs the workers and waits for them, calling {@code tick} about twice a second.
     *
     * @param run the run
     * @param stats where to record
     * @param tick progress callback
     * @throws InterruptedException when interrupted
     */
    default void runAll(Run run, RunStats stats, Runnable tick) throws InterruptedException {
        AtomicLong next = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < run.parallelism(); w++) {
            Thread t = new Thread(() -> {
                try {
                    work(run, next, stats);
                } catch (Exception e) {
                    stats.failed(e);
                } finally {
                    stats.workerEnded(currentThreadAllocatedBytes());
                }
            }, "bench-" + name() + "-" + w);
            workers.add(t);
            t.start();
        }
        for (Thread w : workers) {
            while (w.isAlive()) {
                w.join(500);
                tick.run();
            }
        }
    }

    /**
     * Returns the heap bytes the calling thread has allocated so far, or 0 where the JVM does not count them.
     *
     * @return bytes
     */
    static long currentThreadAllocatedBytes() {
        java.lang.management.ThreadMXBean t = java.lang.management.ManagementFactory.getThreadMXBean();
        if (t instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()
                && sun.isThreadAllocatedMemoryEnabled()) {
            return sun.getCurrentThreadAllocatedBytes();
        }
        return 0;
    }

    /**
     * Finds a mode.
     *
     * @param name regular, stream or bulk
     * @return the runner
     */
    static ModeRunner named(String name) {
        switch (name) {
            case "regular": return new RegularRunner();
            case "stream": return new StreamRunner();
            case "bulk": return new BulkRunner();
            case "batching": return new BatchingRunner();
            case "single": return new SingleRowRunner();
            default: throw new IllegalArgumentException("unknown mode '" + name
                    + "' (regular, stream, bulk, or single and batching for single-row writes)");
        }
    }
}
