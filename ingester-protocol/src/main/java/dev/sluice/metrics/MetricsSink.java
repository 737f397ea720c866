package dev.sluice.metrics;

import java.util.function.Supplier;

/**
 * Where a client reports what it does: rows and bytes written, failures, retries, latencies and a few gauges.
 * Give one to {@code GreptimeOptions.Builder.metrics}; without one the client reports to {@link #NONE}.
 *
 * <p>Every method has a default that records nothing, so an implementation overrides only what it wants. The
 * methods are called from the client's I/O and callback threads and must be thread-safe, quick and must not
 * throw. {@link MicrometerMetricsSink} publishes to a Micrometer registry; it is the only class here that needs
 * Micrometer, and it is loaded only by a program that names it.
 *
 * <p>Paths are {@code "regular"}, {@code "stream"}, {@code "bulk"} (the batching writer reports through the path
 * it sends on).
 */
public interface MetricsSink {
    /** Records nothing. */
    MetricsSink NONE = new MetricsSink() {
    };

    /**
     * Called once by each client built with this sink, when the client is created; the client then reports
     * only to the returned sink and {@link #close() closes} it when the client shuts down. The default returns
     * this sink itself, so the events of every client that shares it arrive here together.
     *
     * @param endpoint the client's first endpoint ({@code host:port}), to tell clients apart
     * @return the sink this client reports to
     */
    default MetricsSink forClient(String endpoint) {
        return this;
    }

    /**
     * Rows the server acknowledged.
     *
     * @param path the write path
     * @param table the table, or {@code "multiple"} when one request carried several tables
     * @param rows the acknowledged rows
     */
    default void rows(String path, String table, long rows) {
    }

    /**
     * Encoded bytes sent, for requests answered or failed.
     *
     * @param path the write path
     * @param bytes the encoded bytes
     */
    default void bytes(String path, long bytes) {
    }

    /**
     * A write that failed for good (after every retry it was allowed).
     *
     * @param path the write path
     * @param code the GreptimeDB status code, or -1 when the server sent none
     * @param grpcCode the name of the gRPC status code, such as {@code "UNAVAILABLE"}
     */
    default void failure(String path, int code, String grpcCode) {
    }

    /**
     * One retry of a request, or one replay of a bulk stream.
     *
     * @param path the write path
     */
    default void retry(String path) {
    }

    /**
     * Time from sending a request to its final answer.
     *
     * @param path the write path
     * @param nanos the latency in nanoseconds
     */
    default void latency(String path, long nanos) {
    }

    /**
     * Registers a value the sink reads whenever it wants (in-flight requests and bytes, bulk off-heap memory,
     * rows buffered by batching writers). Called when the client starts; the supplier stays valid until
     * {@link #close()}.
     *
     * @param name the gauge's name, such as {@code "sluice.inflight.bytes"}
     * @param description what it measures
     * @param value reads the current value; cheap and thread-safe
     */
    default void gauge(String name, String description, Supplier<Number> value) {
    }

    /** Called when the client that got this sink from {@link #forClient} shuts down: release what it registered. */
    default void close() {
    }
}
