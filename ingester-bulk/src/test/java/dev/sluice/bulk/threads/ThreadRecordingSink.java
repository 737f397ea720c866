package dev.sluice.bulk.threads;

import dev.sluice.metrics.MetricsSink;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A metrics sink that records which thread each of its calls ran on, as "{@code method} on {@code thread}". */
public final class ThreadRecordingSink implements MetricsSink {
    /** Every method and thread seen, e.g. {@code "rows on sluice-callback-1"}. */
    public final Set<String> threads = ConcurrentHashMap.newKeySet();

    private void seen(String what) {
        threads.add(what + " on " + Thread.currentThread().getName());
    }

    @Override
    public void rows(String path, String table, long rows) {
        seen("rows");
    }

    @Override
    public void bytes(String path, long bytes) {
        seen("bytes");
    }

    @Override
    public void failure(String path, int code, String grpcCode) {
        seen("failure");
    }

    @Override
    public void retry(String path) {
        seen("retry");
    }

    @Override
    public void latency(String path, long nanos) {
        seen("latency");
    }
}
