package dev.sluice.kafka.connect.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's metrics in Connect's task metrics (JMX and every reporter the worker has): the sink's own counters,
 * and Sluice's Micrometer meters (rows, bytes, failures, retries, in flight, latency) read from a registry the
 * client publishes to. Without plugin metrics (a worker older than Kafka 4.1) only the registry is kept.
 *
 * <p>Publishing never fails the task. When Connect restarts a task whose previous instance did not stop within
 * {@code task.shutdown.graceful.timeout.ms}, it starts the new instance while the old one, cancelled, still holds
 * the same metric names; the new instance then publishes each such metric once the old one has let go of it
 * ({@link #publishPending()}, called on every commit).
 */
public final class TaskMetrics implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskMetrics.class);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PluginMetrics plugin;
    private final List<MetricName> names = new ArrayList<>();
    /** Metrics whose names were still taken when first published, in order. */
    private final Map<MetricName, MetricValueProvider<?>> pending = new LinkedHashMap<>();

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
        publish(plugin.metricName("sluice-write-latency-max-ms", "slowest write since start, ms (Sluice)",
                new LinkedHashMap<>()), (org.apache.kafka.common.metrics.Gauge<Double>) (cfg, now) ->
                sum("sluice.write.latency", m -> m instanceof Timer t ? t.max(TimeUnit.MILLISECONDS) : 0));
        if (!pending.isEmpty()) {
            LOG.warn("GreptimeDB sink task: {} of its metrics are still held by a previous instance of the task"
                    + " (stopping after Connect cancelled it); they are published once it lets go", pending.size());
        }
    }

    private void add(String name, String doc, LongSupplier value) {
        publish(plugin.metricName(name, doc, new LinkedHashMap<>()),
                (org.apache.kafka.common.metrics.Gauge<Long>) (cfg, now) -> value.getAsLong());
    }

    private void sluice(String name, String doc, String meter) {
        publish(plugin.metricName(name, doc, new LinkedHashMap<>()), (org.apache.kafka.common.metrics.Gauge<Double>)
                (cfg, now) -> sum(meter, m -> m instanceof Counter c ? c.count() : m instanceof Gauge g ? g.value() : 0));
    }

    private void publish(MetricName name, MetricValueProvider<?> provider) {
        if (tryAdd(name, provider)) {
            names.add(name);
        } else {
            pending.put(name, provider);
        }
    }

    private boolean tryAdd(MetricName name, MetricValueProvider<?> provider) {
        try {
            plugin.addMetric(name, provider);
            return true;
        } catch (IllegalArgumentException taken) {
            return false; // the worker's registry holds the name: a previous instance of this task
        }
    }

    /** Publishes the metrics whose names a previous instance of the task held, once they are free. */
    public void publishPending() {
        if (pending.isEmpty()) {
            return;
        }
        Iterator<Map.Entry<MetricName, MetricValueProvider<?>>> it = pending.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<MetricName, MetricValueProvider<?>> e = it.next();
            if (tryAdd(e.getKey(), e.getValue())) {
                names.add(e.getKey());
                it.remove();
            }
        }
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
                try {
                    plugin.removeMetric(n);
                } catch (IllegalStateException | IllegalArgumentException alreadyGone) {
                    // the worker closed the task's plugin metrics first: they are removed already
                }
            }
        }
        names.clear();
        pending.clear();
        registry.close();
    }
}
