/**
 * The Sluice client for GreptimeDB: {@link dev.sluice.GreptimeDB} with regular, stream, batching and (with
 * {@code dev.sluice.bulk}) bulk writes, and {@link dev.sluice.metrics} for reporting what it does.
 *
 * <p>Requiring this module gives the table model and write outcomes of {@code dev.sluice.common} too. Bulk
 * writes need the {@code ingester-bulk} artifact and {@code requires dev.sluice.bulk}; Micrometer is needed only
 * by a program that uses {@link dev.sluice.metrics.MicrometerMetricsSink}. Packages named {@code internal} are
 * not exported.
 */
// gRPC and protobuf publish automatic modules only. (javac's "not indirectly exported" warnings about the
// bulk and Micrometer types in the API are expected: those modules are optional on purpose, see below.)
@SuppressWarnings("requires-automatic")
module dev.sluice.protocol {
    requires transitive dev.sluice.common;
    // Optional, and not transitive (javac would then demand them from every user at compile time): a user of
    // bulk writes adds ingester-bulk and "requires dev.sluice.bulk", a user of MicrometerMetricsSink
    // "requires micrometer.core", as they name those modules' types themselves.
    requires static dev.sluice.bulk;
    requires static micrometer.core;
    // Optional with dev.sluice.bulk: the client reads the bulk allocator's usage for its gauge.
    requires static org.apache.arrow.memory.core;
    requires io.grpc;
    requires io.grpc.stub;
    requires io.grpc.protobuf;
    requires io.grpc.netty.shaded;
    requires com.google.protobuf;
    // The generated health-check FutureStub returns Guava's ListenableFuture.
    requires com.google.common;
    requires org.slf4j;

    exports dev.sluice;
    exports dev.sluice.metrics;
}
