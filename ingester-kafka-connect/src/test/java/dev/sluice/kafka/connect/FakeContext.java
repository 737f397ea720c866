package dev.sluice.kafka.connect;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/** A task context that records rewinds and back-offs, with an optional dead-letter reporter. */
final class FakeContext implements SinkTaskContext {
    final Map<TopicPartition, Long> rewinds = new HashMap<>();
    long timeout = -1;
    final Reporter reporter;
    /** Metrics the task registered, by name; null to act as a worker without plugin metrics. */
    Map<String, org.apache.kafka.common.metrics.MetricValueProvider<?>> metrics;
    /** When set, handed to the task as its plugin metrics (a worker's own implementation). */
    PluginMetrics workerMetrics;

    /** Collects reported records; each report completes at once unless {@link #hold} is set. */
    static final class Reporter implements ErrantRecordReporter {
        final List<SinkRecord> records = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();
        final List<CompletableFuture<Void>> futures = new ArrayList<>();
        boolean hold;

        @Override
        public synchronized Future<Void> report(SinkRecord record, Throwable error) {
            records.add(record);
            errors.add(error);
            CompletableFuture<Void> f = new CompletableFuture<>();
            futures.add(f);
            if (!hold) {
                f.complete(null);
            }
            return f;
        }
    }

    FakeContext(boolean withDlq) {
        this.reporter = withDlq ? new Reporter() : null;
    }

    @Override
    public Map<String, String> configs() {
        return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
        rewinds.putAll(offsets);
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
        rewinds.put(tp, offset);
    }

    @Override
    public void timeout(long timeoutMs) {
        timeout = timeoutMs;
    }

    @Override
    public Set<TopicPartition> assignment() {
        return Set.of();
    }

    @Override
    public void pause(TopicPartition... partitions) {
    }

    @Override
    public void resume(TopicPartition... partitions) {
    }

    @Override
    public void requestCommit() {
    }

    @Override
    public ErrantRecordReporter errantRecordReporter() {
        return reporter;
    }

    @Override
    public PluginMetrics pluginMetrics() {
        if (workerMetrics != null) {
            return workerMetrics;
        }
        if (metrics == null) {
            return null;
        }
        return new PluginMetrics() {
            @Override
            public org.apache.kafka.common.MetricName metricName(String name, String description,
                                                                 java.util.LinkedHashMap<String, String> tags) {
                return new org.apache.kafka.common.MetricName(name, "plugins", description, tags);
            }

            @Override
            public void addMetric(org.apache.kafka.common.MetricName name,
                                  org.apache.kafka.common.metrics.MetricValueProvider<?> provider) {
                metrics.put(name.name(), provider);
            }

            @Override
            public void removeMetric(org.apache.kafka.common.MetricName name) {
                metrics.remove(name.name());
            }

            @Override
            public org.apache.kafka.common.metrics.Sensor addSensor(String name) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void removeSensor(String name) {
            }
        };
    }

    /** Reads a gauge the task registered. */
    double gauge(String name) {
        Object v = ((org.apache.kafka.common.metrics.Gauge<?>) metrics.get(name)).value(null, System.currentTimeMillis());
        return ((Number) v).doubleValue();
    }
}
