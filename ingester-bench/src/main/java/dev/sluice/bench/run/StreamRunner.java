package dev.sluice.bench.run;

import dev.sluice.StreamWriteException;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.write.WriteOk;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One {@code HandleRequests} stream per worker. The server answers a stream once, at its end, so there is no
 * per-batch latency; the stream's own latency (completion to answer) is recorded instead.
 */
final class StreamRunner implements ModeRunner {
    @Override
    public String name() {
        return "stream";
    }

    @Override
    public void work(Run run, AtomicLong next, RunStats stats) {
        StreamWriter<Table, WriteOk> stream = run.db().streamWriter(StreamWriter.Config.newBuilder().build(), run.context());
        long rows = 0;
        long b;
        try {
            while ((b = next.getAndIncrement()) < run.batches()) {
                int n = run.rowsOf(b);
                stream.write(run.workload().batch(b * run.batch(), n));
                stats.sent(n);
                rows += n;
            }
        } catch (StreamWriteException e) {
            stats.failed(e);
        }
        long done = System.nanoTime();
        try {
            WriteOk ok = stream.completed().join();
            stats.latency(System.nanoTime() - done);
            stats.acked(ok.affectedRows());
            if (ok.affectedRows() != rows) {
                stats.failed("stream acknowledged " + ok.affectedRows() + " of " + rows + " rows");
            }
        } catch (CompletionException e) {
            stats.failed(e.getCause());
        }
    }
}
