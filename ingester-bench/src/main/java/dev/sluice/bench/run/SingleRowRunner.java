package dev.sluice.bench.run;

import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.data.Table;
import dev.sluice.write.WriteOk;
import java.util.concurrent.atomic.AtomicLong;

/** The baseline for batching: every row is its own one-row {@code write(Table)}, one call in flight per worker. */
final class SingleRowRunner implements ModeRunner {
    @Override
    public String name() {
        return "single";
    }

    @Override
    public void work(Run run, AtomicLong next, RunStats stats) {
        long i;
        while ((i = next.getAndIncrement()) < run.rows()) {
            Table t = Table.from(run.workload().schema(), 1);
            run.workload().fill(t::addRow, i, 1);
            stats.sent(1);
            long sent = System.nanoTime();
            Result<WriteOk, Err> r = run.db().write(t).join();
            stats.latency(System.nanoTime() - sent);
            if (r.isOk()) {
                stats.acked(1);
            } else {
                stats.failed(r.getErr());
            }
        }
    }

    @Override
    public long units(Run run) {
        return run.rows();
    }
}
