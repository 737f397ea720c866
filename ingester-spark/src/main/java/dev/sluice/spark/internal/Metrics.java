package dev.sluice.spark.internal;

import dev.sluice.sink.internal.ClientSession;
import dev.sluice.metrics.MetricsSink;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The write's Spark custom metrics, shown per write in the SQL tab of Spark's UI: rows and bytes GreptimeDB
 * acknowledged, batches acknowledged, retries, and batches that failed for good. Spark reads a task's metrics when its
 * input ends, before it commits; the task waits for its last acknowledgements first, so Spark sums final values over
 * the tasks of a batch write or a micro-batch.
 */
public final class Metrics implements ClientSession.SinkMetrics {
    private final LongAdder rows = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder batches = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder failures = new LongAdder();

    /** @return the metrics Spark sums over a write's tasks */
    public static CustomMetric[] supported() {
        return new CustomMetric[] {new RowsWritten(), new BytesWritten(), new Batches(), new Retries(),
            new Failures()};
    }

    @Override
    public MetricsSink clientSink() {
        return new MetricsSink() {
            @Override
            public void rows(String path, String table, long n) {
                rows.add(n);
            }

            @Override
            public void bytes(String path, long n) {
                bytes.add(n);
            }

            @Override
            public void retry(String path) {
                retries.increment();
            }
        };
    }

    @Override
    public void batch() {
        batches.increment();
    }

    @Override
    public void failure() {
        failures.increment();
    }

    @Override
    public void inFlight(LongSupplier rowsInFlight) {
        // Spark has no gauges for a task; its metrics are read when the task ends.
    }

    /** @return the current values: rows, bytes, batches, retries, failures */
    long[] snapshot() {
        return new long[] {rows.sum(), bytes.sum(), batches.sum(), retries.sum(), failures.sum()};
    }

    /**
     * Names values as Spark's task metrics.
     *
     * @param v values in the order of {@link #snapshot()}
     * @return the metrics
     */
    static CustomTaskMetric[] of(long[] v) {
        return new CustomTaskMetric[] {task(RowsWritten.NAME, v[0]), task(BytesWritten.NAME, v[1]),
            task(Batches.NAME, v[2]), task(Retries.NAME, v[3]), task(Failures.NAME, v[4])};
    }

    private static CustomTaskMetric task(String name, long value) {
        return new CustomTaskMetric() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public long value() {
                return value;
            }
        };
    }

    /** A summed metric with its name and description; Spark creates each subclass by its no-argument constructor. */
    abstract static class Sum extends CustomSumMetric {
        private final String name;
        private final String description;

        Sum(String name, String description) {
            this.name = name;
            this.description = description;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return description;
        }
    }

    /** Rows GreptimeDB acknowledged. */
    public static final class RowsWritten extends Sum {
        static final String NAME = "greptimeRowsWritten";

        /** Creates the metric. */
        public RowsWritten() {
            super(NAME, "rows acknowledged by GreptimeDB");
        }
    }

    /** Encoded bytes of the requests GreptimeDB answered. */
    public static final class BytesWritten extends Sum {
        static final String NAME = "greptimeBytesWritten";

        /** Creates the metric. */
        public BytesWritten() {
            super(NAME, "bytes sent to GreptimeDB and acknowledged");
        }
    }

    /** Batches GreptimeDB acknowledged. */
    public static final class Batches extends Sum {
        static final String NAME = "greptimeBatches";

        /** Creates the metric. */
        public Batches() {
            super(NAME, "batches acknowledged by GreptimeDB");
        }
    }

    /** Attempts the client sent again. */
    public static final class Retries extends Sum {
        static final String NAME = "greptimeRetries";

        /** Creates the metric. */
        public Retries() {
            super(NAME, "GreptimeDB requests retried");
        }
    }

    /** Batches that failed for good. */
    public static final class Failures extends Sum {
        static final String NAME = "greptimeFailures";

        /** Creates the metric. */
        public Failures() {
            super(NAME, "GreptimeDB batches failed after retries");
        }
    }
}
