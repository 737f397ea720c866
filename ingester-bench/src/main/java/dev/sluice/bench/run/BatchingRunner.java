package dev.sluice.bench.run;

import dev.sluice.BatchingWriter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Single-row writes from every worker into one shared {@link BatchingWriter}; the writer's counters say
 * which rows were acknowledged. The latency column samples how long one {@code write} call takes.
 */
final class BatchingRunner implements ModeRunner {
    private volatile BatchingWriter writer;

    @Override
    public String name() {
        return "batching";
    }

    @Override
    public void runAll(Run run, RunStats stats, Runnable tick) throws InterruptedException {
        writer = run.db().batchingWriter(BatchingWriter.Config.newBuilder().path(run.batchingPath()).build(),
                run.context());
        try {
            ModeRunner.super.runAll(run, stats, tick);
            writer.flush(Duration.ofMinutes(5));
        } finally {
            writer.close();
            // The writer's own counters are authoritative: rows of acknowledged and of failed batches.
            stats.acked(writer.ackedRows());
            if (writer.failedRows() > 0) {
                stats.failed(writer.failedRows() + " rows in failed batches");
            }
        }
    }

    @Override
    public void work(Run run, AtomicLong next, RunStats stats) {
        long i;
        while ((i = next.getAndIncrement()) < run.rows()) {
            long sent = System.nanoTime();
            run.workload().fill(row -> writer.write(run.workload().schema(), row), i, 1);
            stats.sent(1);
            if ((i & 1023) == 0) {
                stats.latency(System.nanoTime() - sent);
            }
        }
    }

    @Override
    public long units(Run run) {
        return run.rows();
    }
}
