package dev.sluice.flink.internal;

import dev.sluice.metrics.MetricsSink;
import dev.sluice.sink.internal.ClientSession;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;

/**
 * The sink's meters in Flink's metric group of the writer, under the subgroup {@code greptime}: {@code rowsWritten}
 * (acknowledged by the server), {@code bytesWritten} (encoded bytes of the requests it answered), {@code batches}
 * (acknowledged), {@code retries},
 * {@code failures} (batches failed for good), and the gauge {@code inFlightRows} (buffered or unanswered). Flink's
 * standard {@code numRecordsSend} and {@code numBytesSend} follow the same two counts. The client's own
 * gauges appear beside them, each under its own name.
 */
public final class FlinkMetrics implements ClientSession.SinkMetrics {
    private final MetricGroup group;
    private final SafeCounter rows;
    private final SafeCounter bytes;
    private final SafeCounter batches;
    private final SafeCounter retries;
    private final SafeCounter failures;
    private final Counter flinkRows;
    private final Counter flinkBytes;

    /**
     * Registers the meters.
     *
     * @param writerGroup the writer's metric group
     */
    public FlinkMetrics(SinkWriterMetricGroup writerGroup) {
        this.group = writerGroup.addGroup("greptime");
        this.rows = group.counter("rowsWritten", new SafeCounter());
        this.bytes = group.counter("bytesWritten", new SafeCounter());
        this.batches = group.counter("batches", new SafeCounter());
        this.retries = group.counter("retries", new SafeCounter());
        this.failures = group.counter("failures", new SafeCounter());
        this.flinkRows = writerGroup.getNumRecordsSendCounter();
        this.flinkBytes = writerGroup.getNumBytesSendCounter();
    }

    @Override
    public MetricsSink clientSink() {
        return new MetricsSink() {
            @Override
            public void rows(String path, String table, long n) {
                rows.inc(n);
                synchronized (flinkRows) {
                    flinkRows.inc(n);
                }
            }

            @Override
            public void bytes(String path, long n) {
                bytes.inc(n);
                synchronized (flinkBytes) {
                    flinkBytes.inc(n);
                }
            }

            @Override
            public void retry(String path) {
                retries.inc();
            }

            @Override
            public void gauge(String name, String description, Supplier<Number> value) {
                group.gauge(name.replace('.', '_'), (Gauge<Number>) value::get);
            }
        };
    }

    @Override
    public void batch() {
        batches.inc();
    }

    @Override
    public void failure() {
        failures.inc();
    }

    @Override
    public void inFlight(LongSupplier rowsInFlight) {
        group.gauge("inFlightRows", (Gauge<Long>) rowsInFlight::getAsLong);
    }

    /** A counter safe to increment from the client's threads. */
    static final class SafeCounter implements Counter {
        private final LongAdder n = new LongAdder();

        @Override
        public void inc() {
            n.increment();
        }

        @Override
        public void inc(long by) {
            n.add(by);
        }

        @Override
        public void dec() {
            n.decrement();
        }

        @Override
        public void dec(long by) {
            n.add(-by);
        }

        @Override
        public long getCount() {
            return n.sum();
        }
    }
}
