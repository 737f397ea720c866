package dev.sluice.kafka.connect.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * A task's metrics in Connect's task metrics (JMX and every reporter the worker has): the sink's own counters,
 * and Sluice's Micrometer meters (rows, bytes, failures, retries, in flight, latency) read from a registry the
 * client publishes to. Without plugin metrics (a worker older than Kafka 4.1) only the registry is kept.
 */
public final class TaskMetrics implements AutoCloseable {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PluginMetrics plugin;
    private final List<MetricName> names = new ArrayList<>();

    private TaskMetrics(PluginMetrics plugin) {
        this.plugin = plugin;
    }

    /**
     * Creates the metrics of a task.
     *
     * @param context the task's context
     * @return the metrics
     */
    public static TaskMetrics create(SinkTaskContext context) {
        PluginMetrics p;
        try {
            p = context.pluginMetrics();
        } catch (AbstractMethodError | NoSuchMethodError | NoClassDefFoundError | UnsupportedOperationException e) {
            p = null;
        }
        return new TaskMetrics(p);
    }

    /** @return the Micrometer registry to hand to the Sluice client */
    public SimpleMeterRegistry meterRegistry() {
        return registry;
    }

    /**
     * Publishes the session's counters and the client's meters.
     *
     * @param session the task's session
     */
    public void bind(SinkSession session) {
        if (plugin == null) {
            return;
        }
        SinkSession.Counters c = session.counters();
        add("records-received", "records handed to the task", c.received::sum);
        add("records-stored", "records whose rows GreptimeDB acknowledged", c.stored::sum);
        add("records-dead-lettered", "records sent to the dead-letter queue", c.reported::sum);
        add("tombstones-skipped", "tombstones skipped (deletes are off)", c.skippedTombstones::sum);
        add("rewinds", "rewinds for redelivery after retryable failures", c.rewinds::sum);
        add("batch-isolations", "refused batches split to find bad records", c.isolations::sum);
        sluice("sluice-write-rows", "rows acknowledged (Sluice)", "sluice.write.rows");
        sluice("sluice-write-bytes", "encoded bytes sent (Sluice)", "sluice.write.bytes");
        sluice("sluice-write-failures", "writes failed for good (Sluice)", "sluice.write.failures");
        sluice("sluice-write-retries", "retries (Sluice)", "sluice.write.retries");
        sluice("sluice-inflight-requests", "requests in flight (Sluice)", "sluice.inflight.requests");
        sluice("sluice-inflight-bytes", "bytes of the client budget in use (Sluice)", "sluice.inflight.bytes");
        sluice("sluice-buffered-rows", "rows buffered or in flight in the batching writer (Sluice)",
                "sluice.batching.buffered.rows");
        MetricName latency = plugin.metricName("sluice-write-latency-max-ms", "slowest write since start, ms (Sluice)",
                new LinkedHashMap<>());
        plugin.addMetric(latency, (org.apache.kafka.common.metrics.Gauge<Double>) (cfg, now) ->
                sum("sluice.write.latency", m -> m instanceof Timer t ? t.max(TimeUnit.MILLISECONDS) : 0));
        names.add(latency);
    }

    private void add(String name, String doc, LongSupplier value) {
        MetricName n = plugin.metricName(name, doc, new LinkedHashMap<>());
        plugin.addMetric(n, (org.apache.kafka.common.metrics.Gauge<Long>) (cfg, now) -> value.getAsLong());
        names.add(n);
    }

    private void sluice(String name, String doc, String meter) {
        MetricName n = plugin.metricName(name, doc, new LinkedHashMap<>());
        plugin.addMetric(n, (org.apache.kafka.common.metrics.Gauge<Double>) (cfg, now) -> sum(meter, m ->
                m instanceof Counter c ? c.count() : m instanceof Gauge g ? g.value() : 0));
        names.add(n);
    }

    private double sum(String meter, ToDoubleFunction<Meter> read) {
        double s = 0;
        for (Meter m : registry.find(meter).meters()) {
            s += read.applyAsDouble(m);
        }
        return s;
    }

    /** Removes the task's metrics. */
    @Override
    public void close() {
        if (plugin != null) {
            for (MetricName n : names) {
                plugin.removeMetric(n);
            }
        }
        names.clear();
        registry.close();
    }
}
