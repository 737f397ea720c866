package dev.sluice.bench.run;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** What one mode's workers record: rows acknowledged and sent, batch latencies, failures. Thread-safe. */
public final class RunStats {
    private final AtomicLong ackedRows = new AtomicLong();
    private final AtomicLong sentRows = new AtomicLong();
    private final AtomicLong failedBatches = new AtomicLong();
    private final AtomicLongArray latencyMicros;
    private final AtomicLong latencies = new AtomicLong();
    private final List<String> errors = new ArrayList<>();
    private final AtomicLong endedWorkerAllocatedBytes = new AtomicLong();
    private volatile long markRows = Long.MAX_VALUE;
    private volatile Runnable mark;

    /**
     * Creates stats for a run.
     *
     * @param batches how many batches the run sends
     */
    public RunStats(long batches) {
        this.latencyMicros = new AtomicLongArray((int) Math.min(batches, Integer.MAX_VALUE - 8));
    }

    /**
     * Records rows handed to the client.
     *
     * @param rows rows sent
     */
    public void sent(long rows) {
        long total = sentRows.addAndGet(rows);
        if (total >= markRows && total - rows < markRows) {
            Runnable m = mark;
            if (m != null) {
                m.run();
            }
        }
    }

    /**
     * Runs {@code action} once, on the worker thread whose {@link #sent} call first brings the rows handed to the
     * client to {@code rows} or more.
     *
     * @param rows the threshold, at least 1
     * @param action what to run then
     */
    public void markAt(long rows, Runnable action) {
        if (rows < 1) {
            throw new IllegalArgumentException("the mark needs at least 1 row, got " + rows);
        }
        this.mark = action;
        this.markRows = rows;
    }

    /**
     * Records acknowledged rows.
     *
     * @param rows rows the server confirmed
     */
    public void acked(long rows) {
        ackedRows.addAndGet(rows);
    }

    /**
     * Records one batch's latency, from send to the server's answer.
     *
     * @param nanos latency
     */
    public void latency(long nanos) {
        long i = latencies.getAndIncrement();
        if (i < latencyMicros.length()) {
            latencyMicros.set((int) i, nanos / 1_000);
        }
    }

    /**
     * Records a failed batch (or stream).
     *
     * @param error what happened
     */
    public void failed(Object error) {
        failedBatches.incrementAndGet();
        synchronized (errors) {
            if (errors.size() < 3) {
                errors.add(String.valueOf(error));
            }
        }
    }

    /** @return rows acknowledged */
    public long ackedRows() {
        return ackedRows.get();
    }

    /** @return rows sent */
    public long sentRows() {
        return sentRows.get();
    }

    /** @return failures */
    public long failedBatches() {
        return failedBatches.get();
    }

    /** @return the first errors seen */
    public List<String> errors() {
        synchronized (errors) {
            return List.copyOf(errors);
        }
    }

    /**
     * Returns a latency percentile.
     *
     * @param p 0..1
     * @return microseconds, or -1 when no latency was recorded
     */
    public long percentileMicros(double p) {
        int n = (int) Math.min(latencies.get(), latencyMicros.length());
        if (n == 0) {
            return -1;
        }
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = latencyMicros.get(i);
        }
        Arrays.sort(v);
        return v[Math.max(0, Math.min(n - 1, (int) Math.ceil(p * n) - 1))];
    }

    /**
     * Records the heap bytes a worker thread allocated over its life, as it ends (a thread's counter is gone once
     * it has ended, so the cost benchmark collects it here).
     *
     * @param bytes the thread's allocated bytes
     */
    public void workerEnded(long bytes) {
        endedWorkerAllocatedBytes.addAndGet(Math.max(0, bytes));
    }

    /**
     * Returns the heap bytes allocated by worker threads that have ended.
     *
     * @return bytes, summed over the ended workers
     */
    public long endedWorkerAllocatedBytes() {
        return endedWorkerAllocatedBytes.get();
    }
}
