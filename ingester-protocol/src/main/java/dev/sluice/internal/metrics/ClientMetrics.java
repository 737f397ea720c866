package dev.sluice.internal.metrics;

import java.util.function.Supplier;

/**
 * What the client reports about itself. Without a Micrometer registry (or without Micrometer on the class
 * path) the client uses {@link #NONE}, which records nothing and loads no Micrometer class.
 */
public interface ClientMetrics {
    /** Records nothing. */
    ClientMetrics NONE = new ClientMetrics() {
    };

    /**
     * Rows the server acknowledged.
     *
     * @param path regular, stream or bulk
     * @param table the table, or "multiple"
     * @param rows rows
     */
    default void rows(String path, String table, long rows) {
    }

    /**
     * Bytes sent for acknowledged or failed requests.
     *
     * @param path regular, stream or bulk
     * @param bytes encoded bytes
     */
    default void bytes(String path, long bytes) {
    }

    /**
     * A write that failed for good.
     *
     * @param path the path
     * @param code the GreptimeDB code, or -1
     * @param grpcCode the gRPC code's name
     */
    default void failure(String path, int code, String grpcCode) {
    }

    /**
     * A retry (or a bulk stream replay).
     *
     * @param path the path
     */
    default void retry(String path) {
    }

    /**
     * Time from sending to the final answer.
     *
     * @param path the path
     * @param nanos the latency
     */
    default void latency(String path, long nanos) {
    }

    /**
     * Registers a gauge read on demand.
     *
     * @param name meter name
     * @param description what it measures
     * @param value the reading
     */
    default void gauge(String name, String description, Supplier<Number> value) {
    }

    /** Removes the client's meters from the registry. */
    default void close() {
    }

    /**
     * Binds to a Micrometer registry.
     *
     * @param registry a {@code io.micrometer.core.instrument.MeterRegistry}, or null
     * @param endpoint the first endpoint, used as the {@code endpoint} tag
     * @return the metrics
     * @throws IllegalArgumentException when the object is not a MeterRegistry or Micrometer is missing
     */
    static ClientMetrics of(Object registry, String endpoint) {
        if (registry == null) {
            return NONE;
        }
        try {
            Class<?> type = Class.forName("io.micrometer.core.instrument.MeterRegistry", false,
                    ClientMetrics.class.getClassLoader());
            if (!type.isInstance(registry)) {
                throw new IllegalArgumentException("meterRegistry must be an io.micrometer.core.instrument.MeterRegistry,"
                        + " not " + registry.getClass().getName());
            }
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("a meterRegistry was given but Micrometer is not on the class path", e);
        }
        return new MicrometerMetrics(registry, endpoint);
    }
}
