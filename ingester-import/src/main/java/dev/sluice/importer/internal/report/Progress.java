package dev.sluice.importer.internal.report;

import java.io.PrintStream;

/**
 * The progress line: on a terminal rewritten in place every second; otherwise a plain line every interval.
 * Shows inputs done, rows, MB read, rows/s and, when the total size is known, the ETA from bytes read.
 */
public final class Progress {
    private final Thread thread;
    private final boolean terminal;
    private final PrintStream err;
    private final Stats stats;
    private volatile boolean running = true;

    private Progress(Stats stats, PrintStream err, int intervalSeconds) {
        this.stats = stats;
        this.err = err;
        this.terminal = System.console() != null;
        long sleep = terminal ? 1000 : Math.max(1, intervalSeconds) * 1000L;
        this.thread = new Thread(() -> {
            while (running) {
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException e) {
                    return;
                }
                if (running) {
                    print();
                }
            }
        }, "sluice-import-progress");
        thread.setDaemon(true);
    }

    /**
     * Starts printing progress on a thread of its own.
     *
     * @param stats the counters shown
     * @param err where the progress line goes
     * @param intervalSeconds seconds between lines when standard error is not a terminal (a terminal's line is
     *     rewritten every second)
     * @return the running progress
     */
    public static Progress start(Stats stats, PrintStream err, int intervalSeconds) {
        Progress p = new Progress(stats, err, intervalSeconds);
        p.thread.start();
        return p;
    }

    String line() {
        double s = (System.nanoTime() - stats.started) / 1e9;
        long rows = stats.rowsWritten.get();
        long bytes = stats.rawBytes.get();
        String eta = "";
        if (stats.totalBytes > 0 && bytes > 0 && bytes < stats.totalBytes) {
            double left = s * (stats.totalBytes - bytes) / bytes;
            eta = String.format(", ETA %d:%02d", (long) left / 60, (long) left % 60);
        }
        return String.format("inputs %d/%d, rows %,d read %,d written %,d rejected, %.1f MB%s, %,.0f rows/s%s",
                stats.inputsDone.get(), stats.inputs, stats.rowsRead.get(), rows, stats.rejected.get(), bytes / 1e6,
                stats.totalBytes > 0 ? String.format(" of %.1f", stats.totalBytes / 1e6) : "", s > 0 ? rows / s : 0, eta);
    }

    private void print() {
        if (terminal) {
            err.print("\r" + line() + "   ");
        } else {
            err.println(line());
        }
        err.flush();
    }

    /** Stops printing progress; on a terminal, leaves the last line in place. */
    public void stop() {
        running = false;
        thread.interrupt();
        if (terminal) {
            err.print("\r" + line() + "   \n");
        }
    }
}
