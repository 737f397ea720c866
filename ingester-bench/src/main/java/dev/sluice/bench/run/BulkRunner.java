package dev.sluice.bench.run;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import java.util.concurrent.atomic.AtomicLong;

/** One Arrow Flight DoPut stream per worker, batches pipelined up to the writer's in-flight limit. */
final class BulkRunner implements ModeRunner {
    @Override
    public String name() {
        return "bulk";
    }

    @Override
    public void work(Run run, AtomicLong next, RunStats stats) {
        try (BulkStreamWriter writer = run.db().bulkStreamWriter(run.workload().schema(), run.bulkConfig(), run.context())) {
            TableBufferRoot root = writer.tableBufferRoot(run.batch());
            long b;
            while ((b = next.getAndIncrement()) < run.batches()) {
                int n = run.rowsOf(b);
                run.workload().fillBatch(root, b * run.batch(), n);
                long sent = System.nanoTime();
                stats.sent(n);
                writer.writeNext().whenComplete((rows, error) -> {
                    stats.latency(System.nanoTime() - sent);
                    if (error == null) {
                        stats.acked(rows);
                    } else {
                        stats.failed(error);
                    }
                });
            }
            writer.completed();
        } catch (BulkWriteException e) {
            // Individual batch failures were recorded by their futures; this only says the stream ended badly.
            if (stats.failedBatches() == 0) {
                stats.failed(e);
            }
        }
    }
}
