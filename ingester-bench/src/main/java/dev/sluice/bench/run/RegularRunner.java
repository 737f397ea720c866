package dev.sluice.bench.run;

import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.data.Table;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Request-response writes: each worker keeps one request in flight. */
final class RegularRunner implements ModeRunner {
    @Override
    public String name() {
        return "regular";
    }

    @Override
    public void work(Run run, AtomicLong next, RunStats stats) {
        long b;
        while ((b = next.getAndIncrement()) < run.batches()) {
            int n = run.rowsOf(b);
            Table t = run.workload().batch(b * run.batch(), n);
            long sent = System.nanoTime();
            stats.sent(n);
            Result<WriteOk, Err> r = run.db().write(List.of(t), WriteOp.Insert, run.context()).join();
            stats.latency(System.nanoTime() - sent);
            if (r.isOk()) {
                stats.acked(n);
            } else {
                stats.failed(r.getErr());
            }
        }
    }
}
