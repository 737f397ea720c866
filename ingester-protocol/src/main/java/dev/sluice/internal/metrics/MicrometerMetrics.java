package dev.sluice.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** {@link ClientMetrics} on Micrometer; meters are created once per tag set and cached. */
final class MicrometerMetrics implements ClientMetrics {
    private final MeterRegistry registry;
    private final String endpoint;
    private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final List<Meter> meters = new CopyOnWriteArrayList<>();

    MicrometerMetrics(Object registry, String endpoint) {
        this.registry = (MeterRegistry) registry;
        this.endpoint = endpoint;
    }

    private Counter counter(String name, String description, String... tags) {
        List<String> key = new java.util.ArrayList<>(List.of(tags));
        key.add(0, name);
        return counters.computeIfAbsent(key, k -> {
            Counter c = Counter.builder(name).description(description).tags(tags).tag("endpoint", endpoint).register(registry);
            meters.add(c);
            return c;
        });
    }

    @Override
    public void rows(String path, String table, long rows) {
        counter("sluice.write.rows", "rows acknowledged by the server", "path", path, "table", table).increment(rows);
    }

    @Override
    public void bytes(String path, long bytes) {
        counter("sluice.write.bytes", "encoded bytes sent", "path", path).increment(bytes);
    }

    @Override
    public void failure(String path, int code, String grpcCode) {
        counter("sluice.write.failures", "writes that failed for good", "path", path, "code", Integer.toString(code),
                "grpc", grpcCode).increment();
    }

    @Override
    public void retry(String path) {
        counter("sluice.write.retries", "retries and bulk stream replays", "path", path).increment();
    }

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

    @Override
    public void gauge(String name, String description, Supplier<Number> value) {
        meters.add(Gauge.builder(name, value).description(description).tag("endpoint", endpoint).register(registry));
    }

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
