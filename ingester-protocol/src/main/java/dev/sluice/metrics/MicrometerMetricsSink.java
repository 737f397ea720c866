package dev.sluice.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A {@link MetricsSink} that publishes to a Micrometer {@link MeterRegistry}. Micrometer
 * ({@code io.micrometer:micrometer-core}) is an optional dependency of the client: add it, then
 * {@code GreptimeOptions.newBuilder(...).metrics(MicrometerMetricsSink.of(registry))}.
 *
 * <p>Meters, each tagged {@code endpoint} with the client's first endpoint: counters {@code sluice.write.rows}
 * (tags {@code path}, {@code table}), {@code sluice.write.bytes} ({@code path}), {@code sluice.write.failures}
 * ({@code path}, {@code code}, {@code grpc}), {@code sluice.write.retries} ({@code path}); the timer
 * {@code sluice.write.latency} ({@code path}, with a percentile histogram from 1 ms to 2 min); gauges
 * {@code sluice.inflight.requests}, {@code sluice.inflight.bytes}, {@code sluice.bulk.allocated.bytes} and
 * {@code sluice.batching.buffered.rows}. A client's meters leave the registry when it shuts down.
 */
public final class MicrometerMetricsSink implements MetricsSink {
    private final MeterRegistry registry;
    private final String endpoint;
    private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final List<Meter> meters = new CopyOnWriteArrayList<>();

    private MicrometerMetricsSink(MeterRegistry registry, String endpoint) {
        this.registry = registry;
        this.endpoint = endpoint;
    }

    /**
     * A sink for the given registry; each client built with it registers its own meters there.
     *
     * @param registry where meters are registered
     * @return the sink
     * @throws NullPointerException when registry is null
     */
    public static MicrometerMetricsSink of(MeterRegistry registry) {
        return new MicrometerMetricsSink(Objects.requireNonNull(registry, "registry"), "");
    }

    /** @return the registry meters are registered in */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Returns a new sink on the same registry whose meters carry {@code endpoint} as their {@code endpoint} tag.
     */
    @Override
    public MetricsSink forClient(String endpoint) {
        return new MicrometerMetricsSink(registry, Objects.requireNonNull(endpoint, "endpoint"));
    }

    private Counter counter(String name, String description, String... tags) {
        List<String> key = new ArrayList<>(tags.length + 1);
        key.add(name);
        key.addAll(List.of(tags));
        return counters.computeIfAbsent(key, k -> {
            Counter c = Counter.builder(name).description(description).tags(tags).tag("endpoint", endpoint)
                    .register(registry);
            meters.add(c);
            return c;
        });
    }

    /** {@inheritDoc} */
    @Override
    public void rows(String path, String table, long rows) {
        counter("sluice.write.rows", "rows acknowledged by the server", "path", path, "table", table).increment(rows);
    }

    /** {@inheritDoc} */
    @Override
    public void bytes(String path, long bytes) {
        counter("sluice.write.bytes", "encoded bytes sent", "path", path).increment(bytes);
    }

    /** {@inheritDoc} */
    @Override
    public void failure(String path, int code, String grpcCode) {
        counter("sluice.write.failures", "writes that failed for good", "path", path, "code", Integer.toString(code),
                "grpc", grpcCode).increment();
    }

    /** {@inheritDoc} */
    @Override
    public void retry(String path) {
        counter("sluice.write.retries", "retries and bulk stream replays", "path", path).increment();
    }

    /** {@inheritDoc} */
    @Override
    public void latency(String path, long nanos) {
        timers.computeIfAbsent(path, p -> {
            Timer t = Timer.builder("sluice.write.latency").description("from sending to the final answer")
                    .tag("path", p).tag("endpoint", endpoint).publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(2))
                    .register(registry);
            meters.add(t);
            return t;
        }).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** {@inheritDoc} */
    @Override
    public void gauge(String name, String description, Supplier<Number> value) {
        meters.add(Gauge.builder(name, value).description(description).tag("endpoint", endpoint).register(registry));
    }

    /** Removes the meters this sink registered from the registry. */
    @Override
    public void close() {
        for (Meter m : meters) {
            registry.remove(m);
        }
        meters.clear();
        counters.clear();
        timers.clear();
    }
}
